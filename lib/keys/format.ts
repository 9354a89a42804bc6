import { randomInt } from "node:crypto";
import { crc32 } from "node:zlib";

/** Service prefix fixed by the SPEC (part A). */
export const KEY_PREFIX = "tlt_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
const KEY_PATTERN = /^tlt_[0-9A-Za-z]{38}$/;

/**
 * A new API key: `tlt_` + 32 random base62 characters + 6 base62 characters of
 * the CRC32 of the random part, so that a secret scanner can tell a real key
 * from a look-alike offline (the GitHub token scheme).
 */
export function generateApiKey(): string {
  let random = "";
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return KEY_PREFIX + random + checksum(random);
}

/** A project's public (DSN) key: 32 characters of [A-Za-z0-9], which every Sentry SDK accepts. */
export const PUBLIC_KEY_LENGTH = 32;
const PUBLIC_RANDOM_LENGTH = PUBLIC_KEY_LENGTH - CHECKSUM_LENGTH;
const PUBLIC_KEY_PATTERN = /^[0-9A-Za-z]{32}$/;

/**
 * A new public key: 26 random base62 characters (155 bits) + 6 of their
 * CRC32, so that forged keys are refused without a lookup, as secret keys are.
 */
export function generatePublicKey(): string {
  let random = "";
  for (let i = 0; i < PUBLIC_RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return random + checksum(random);
}

export function isWellFormedPublicKey(key: string): boolean {
  return PUBLIC_KEY_PATTERN.test(key) && key.slice(PUBLIC_RANDOM_LENGTH) === checksum(key.slice(0, PUBLIC_RANDOM_LENGTH));
}

/** Shape and checksum only: cheap, offline, no database. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const random = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return key.slice(KEY_PREFIX.length + RANDOM_LENGTH) === checksum(random);
}

function checksum(random: string): string {
  return toBase62(crc32(Buffer.from(random, "ascii")), CHECKSUM_LENGTH);
}

function toBase62(value: number, width: number): string {
  let out = "";
  let n = value;
  while (n > 0) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(width, "0");
}

/** `tlt_••••abcd`: what lists and logs may show. */
export function maskApiKey(last4: string): string {
  return `${KEY_PREFIX}${"•".repeat(8)}${last4}`;
}
