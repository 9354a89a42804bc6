import { LRUCache } from "lru-cache";
import { prisma, type Prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { sha256Hex } from "@/lib/crypto/hash";
import { decryptApiKey, encryptApiKey } from "@/lib/keys/crypto";
import { generateApiKey, isWellFormedApiKey, KEY_LENGTH } from "@/lib/keys/format";
import { logger } from "@/lib/log";
import { fromSettings } from "@/lib/config/settings";

export type AuthenticatedKey = { keyId: string; projectId: string };

type CacheEntry = { keyId: string; projectId: string } | { unknown: true };

// Key lookups are cached briefly so ingestion does not read the database on
// every request. Rotation deletes the entry here at once; in other instances
// the event INSERT itself re-checks the key (lib/events/event-writer.ts).
const keyCache = fromSettings((s) => new LRUCache<string, CacheEntry>({ max: 10_000, ttl: s.keyCacheTtlMs }));
// Unknown keys are remembered for a shorter time: enough to absorb a client
// hammering with a dead key, short enough to be harmless.
const UNKNOWN_TTL_MS = 2_000;

/**
 * Resolves an API key to its project. Malformed, unknown and revoked keys all
 * get the same `invalid_api_key`. Nothing compares the secret itself: keys are
 * found by the SHA-256 of the whole key (cache and unique index), and since a
 * caller cannot choose what a guess hashes to, the time a lookup takes says
 * nothing about any stored key (the Unkey/GitHub scheme). Only keys whose
 * checksum is right reach the database.
 */
export async function authenticateApiKey(key: string): Promise<AuthenticatedKey> {
  if (key.length !== KEY_LENGTH || !isWellFormedApiKey(key)) throw errors.invalidApiKey();
  const hash = sha256Hex(key);
  let entry = keyCache().get(hash);
  if (!entry) {
    const row = await prisma.apiKey.findUnique({
      where: { hash },
      select: { id: true, projectId: true, revokedAt: true },
    });
    if (row && row.revokedAt === null) {
      entry = { keyId: row.id, projectId: row.projectId };
      keyCache().set(hash, entry);
    } else {
      entry = { unknown: true };
      keyCache().set(hash, entry, { ttl: UNKNOWN_TTL_MS });
    }
  }
  if ("unknown" in entry) throw errors.invalidApiKey();
  return { keyId: entry.keyId, projectId: entry.projectId };
}

type Tx = Prisma.TransactionClient;

/** Creates a key for a project inside the caller's transaction; returns the plaintext once. */
export async function createProjectKey(tx: Tx, projectId: string): Promise<string> {
  const apiKey = generateApiKey();
  await tx.apiKey.create({
    data: { projectId, hash: sha256Hex(apiKey), encrypted: encryptApiKey(apiKey), last4: apiKey.slice(-4) },
  });
  return apiKey;
}

/**
 * Replaces a project's key: the old one is revoked in the same transaction
 * and dropped from this process's cache, so it stops working at once.
 * Authorization (owner only) is the caller's job.
 */
export async function rotateProjectKey(projectId: string): Promise<string> {
  const { apiKey, revokedHashes } = await prisma.$transaction(async (tx) => {
    const active = await tx.apiKey.findMany({ where: { projectId, revokedAt: null }, select: { id: true, hash: true } });
    await tx.apiKey.updateMany({ where: { projectId, revokedAt: null }, data: { revokedAt: new Date() } });
    const apiKey = await createProjectKey(tx, projectId);
    return { apiKey, revokedHashes: active.map((k) => k.hash) };
  });
  for (const hash of revokedHashes) keyCache().delete(hash);
  return apiKey;
}

/** Drops a key from this process's cache (found revoked by another instance). */
export function forgetApiKey(keyId: string): void {
  for (const [hash, entry] of keyCache().entries()) {
    if (!("unknown" in entry) && entry.keyId === keyId) keyCache().delete(hash);
  }
}

/** Drops every cached key of a project (project deleted). */
export function forgetProjectKeys(projectId: string): void {
  for (const [hash, entry] of keyCache().entries()) {
    if (!("unknown" in entry) && entry.projectId === projectId) keyCache().delete(hash);
  }
}

/**
 * The project's current key in plaintext, for members (Projects page, details
 * API); null when there is none or it was sealed under another server secret.
 */
export async function readProjectKey(projectId: string): Promise<string | null> {
  const row = await prisma.apiKey.findFirst({
    where: { projectId, revokedAt: null },
    orderBy: { createdAt: "desc" },
    select: { encrypted: true },
  });
  if (!row) return null;
  try {
    return decryptApiKey(row.encrypted);
  } catch {
    // Sealed under another TELLTALE_SECRET: the key still works for
    // ingestion (its hash is unaffected) but can't be shown; rotating it fixes
    // that. Not a reason to fail the whole page.
    logger.warn("stored API key cannot be decrypted with the current TELLTALE_SECRET; rotate it", { projectId });
    return null;
  }
}
