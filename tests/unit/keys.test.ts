import { setEnv } from "@/tests/helpers/env";
import { beforeAll, describe, expect, it } from "vitest";
import { generateApiKey, isWellFormedApiKey, KEY_LENGTH, maskApiKey } from "@/lib/keys/format";
import { sha256Hex as hashApiKey } from "@/lib/crypto/hash";
import { decryptApiKey, encryptApiKey } from "@/lib/keys/crypto";

beforeAll(() => {
  process.env.TELLTALE_SECRET ??= "unit-test-secret-unit-test-secret-0123456789";
});

describe("API key format", () => {
  it("is tlt_ + 32 base62 + 6 base62 checksum characters", () => {
    const key = generateApiKey();
    expect(key).toMatch(/^tlt_[0-9A-Za-z]{38}$/);
    expect(key).toHaveLength(KEY_LENGTH);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it("is random", () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey()));
    expect(keys.size).toBe(200);
  });

  it("rejects a key whose checksum does not match (one character changed)", () => {
    const key = generateApiKey();
    const i = 10;
    const swapped = key.slice(0, i) + (key[i] === "a" ? "b" : "a") + key.slice(i + 1);
    expect(isWellFormedApiKey(swapped)).toBe(false);
    const badChecksum = key.slice(0, -1) + (key.endsWith("0") ? "1" : "0");
    expect(isWellFormedApiKey(badChecksum)).toBe(false);
  });

  it("rejects other shapes", () => {
    for (const bad of ["", "tlt_", "sk_" + "a".repeat(38), generateApiKey() + "x", generateApiKey().replace("tlt_", "TLT_"), "tlt_" + "!".repeat(38)]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it("masks all but the last four characters", () => {
    expect(maskApiKey("abcd")).toBe("tlt_••••••••abcd");
  });
});

describe("API key storage", () => {
  it("hashes with SHA-256 (hex) deterministically", () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).not.toBe(hashApiKey(generateApiKey()));
  });

  it("encrypts with AES-256-GCM: round-trips, never contains the plaintext, random IV", () => {
    const key = generateApiKey();
    const a = encryptApiKey(key);
    const b = encryptApiKey(key);
    expect(a).not.toBe(b);
    expect(a).not.toContain(key.slice(4));
    expect(decryptApiKey(a)).toBe(key);
  });

  it("refuses a tampered ciphertext", () => {
    const sealed = Buffer.from(encryptApiKey(generateApiKey()), "base64url");
    sealed[14] ^= 1;
    expect(() => decryptApiKey(sealed.toString("base64url"))).toThrow();
  });

  it("cannot decrypt under another server secret", () => {
    const sealed = encryptApiKey(generateApiKey());
    const previous = process.env.TELLTALE_SECRET;
    setEnv("TELLTALE_SECRET", "another-secret-another-secret-0123456789");
    try {
      expect(() => decryptApiKey(sealed)).toThrow();
    } finally {
      setEnv("TELLTALE_SECRET", previous);
    }
  });
});
