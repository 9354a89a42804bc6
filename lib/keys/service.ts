import { LRUCache } from "lru-cache";
import { transaction } from "@/lib/db/transaction";
import { prisma, type Prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { sha256Hex } from "@/lib/crypto/hash";
import { decryptApiKey, encryptApiKey } from "@/lib/keys/crypto";
import { generateApiKey, generatePublicKey, isWellFormedApiKey, isWellFormedPublicKey, KEY_LENGTH, PUBLIC_KEY_LENGTH } from "@/lib/keys/format";
import { logger } from "@/lib/log";
import { fromSettings, settings } from "@/lib/config/settings";
import { addressBlock } from "@/lib/http/client-address";
import { consumeRateLimit, countAgainstRateLimit, createRateLimit, peekRateLimit, refundRateLimit } from "@/lib/http/rate-limit";
import { publishRedis, subscribeRedis } from "@/lib/redis/connection";

export type AuthenticatedKey = { keyId: string; projectId: string };

/** Secret keys (`tlt_…`) for every ingest route; public keys (a DSN's) for the Sentry routes only. */
export type KeyKind = "secret" | "public";

/** A public key's project as the Sentry routes need it: its DSN number and the origins allowed to send. */
export type PublicKeyProject = AuthenticatedKey & { projectNumber: number; allowedOrigins: string[] };

type CacheEntry = { keyId: string; projectId: string; kind: KeyKind; projectNumber?: number; allowedOrigins?: string[] };

// Key lookups are cached briefly so ingestion does not read the database on
// every request. Rotation deletes the entry here at once, and with REDIS_URL
// in every other instance too (KEY_CHANNEL); whatever an instance still
// trusts, the event INSERT itself re-checks the key (lib/ingest/statement.ts).
// Keys found unknown (or revoked) are remembered for a minute in a cache of
// their own, so a flood of forged keys can neither cost a lookup each again
// nor push real keys out of the cache above.
//
// Both live on globalThis: a production build bundles this module once per
// route, so a dashboard action (a rotation, new allowed origins) would
// otherwise clear its own copy and leave the Sentry routes' copy trusting
// the old key or origins until the TTL.
type KeyCaches = { ttlMs: number; known: LRUCache<string, CacheEntry>; unknown: LRUCache<string, true> };
const sharedCaches = globalThis as unknown as { __telltaleKeyCaches?: KeyCaches };

function caches(): KeyCaches {
  const ttlMs = settings().keyCacheTtlMs;
  let current = sharedCaches.__telltaleKeyCaches;
  if (!current || current.ttlMs !== ttlMs) {
    current = { ttlMs, known: new LRUCache({ max: 10_000, ttl: ttlMs }), unknown: new LRUCache({ max: 50_000, ttl: 60_000 }) };
    sharedCaches.__telltaleKeyCaches = current;
  }
  return current;
}
const keyCache = () => caches().known;
const unknownKeys = () => caches().unknown;
// Failed authentications per client address: past the limit, 429 before any
// lookup, so forging many distinct keys costs the database nothing either.
const failures = fromSettings((s) => createRateLimit({ name: "auth-failures", perWindow: s.auth.failuresPerMinute, windowSeconds: 60 }));
// Lookups that found no key, all addresses together: forged keys from many
// addresses would otherwise cost up to AUTH_FAILURES_PER_MINUTE lookups each.
const failedLookups = fromSettings((s) => createRateLimit({ name: "auth-failed-lookups", perWindow: s.auth.failedLookupsPerMinute, windowSeconds: 60 }));
const ALL_ADDRESSES = "all";
// One database lookup per key hash at a time: concurrent requests with the
// same (uncached) key wait for it, and take no point of their address's budget.
// (undefined: the request holding it was refused before looking.)
const lookupsInFlight = new Map<string, Promise<CacheEntry | null | undefined>>();

/**
 * What one instance tells the others (Redis pub/sub) after a rotation or a
 * project deletion: key hashes that stop working, hashes that just started
 * (never to be served from the unknown-keys cache), a project whose keys all
 * went. Hashes, never keys.
 */
type KeyChange = { revoked?: string[]; created?: string[]; projectId?: string };
const KEY_CHANNEL = "keys";

function applyKeyChange(change: KeyChange): void {
  for (const hash of change.revoked ?? []) {
    keyCache().delete(hash);
    unknownKeys().set(hash, true);
  }
  for (const hash of change.created ?? []) unknownKeys().delete(hash);
  if (change.projectId) forgetProjectKeysHere(change.projectId);
}

let listening = false;

/** Once per process: follow the other instances' key changes (nothing without REDIS_URL). */
function listenForKeyChanges(): void {
  if (listening) return;
  listening = true;
  subscribeRedis(
    KEY_CHANNEL,
    (message) => applyKeyChange(JSON.parse(message) as KeyChange),
    // (Re)subscribed: changes published while we were not listening are
    // lost, so forget everything cached before; lookups refill it.
    () => {
      keyCache().clear();
      unknownKeys().clear();
    },
  );
}

/** Applies a change here at once, then tells the other instances (best effort: the INSERT re-checks anyway). */
async function announceKeyChange(change: KeyChange): Promise<void> {
  applyKeyChange(change);
  await publishRedis(KEY_CHANNEL, JSON.stringify(change));
}

/**
 * Resolves an API key to its project. Malformed, unknown and revoked keys all
 * get the same `invalid_api_key`. Nothing compares the secret itself: keys are
 * found by the SHA-256 of the whole key (cache and unique index), and since a
 * caller cannot choose what a guess hashes to, the time a lookup takes says
 * nothing about any stored key (the Unkey/GitHub scheme). Only keys whose
 * checksum is right reach the database.
 */
export async function authenticateApiKey(key: string, clientAddress = "unknown", kind: KeyKind = "secret"): Promise<AuthenticatedKey> {
  const entry = await lookUpKey(key, clientAddress, kind);
  return { keyId: entry.keyId, projectId: entry.projectId };
}

/** A DSN's public key -> its project, number and allowed origins; refused as any unknown key is. */
export async function authenticatePublicKey(key: string, clientAddress = "unknown"): Promise<PublicKeyProject> {
  const entry = await lookUpKey(key, clientAddress, "public");
  return { keyId: entry.keyId, projectId: entry.projectId, projectNumber: entry.projectNumber!, allowedOrigins: entry.allowedOrigins ?? ["*"] };
}

async function lookUpKey(key: string, address: string, kind: KeyKind): Promise<CacheEntry> {
  listenForKeyChanges();
  const clientAddress = addressBlock(address);
  // The cache first: it holds only keys the database knew, so a hit needs no
  // shape or checksum check (that check, per request, cost more than the hash).
  const hash = key.length === (kind === "secret" ? KEY_LENGTH : PUBLIC_KEY_LENGTH) ? sha256Hex(key) : null;
  const cached = hash ? keyCache().get(hash) : undefined;
  if (cached && cached.kind === kind) return cached;

  const gate = await peekRateLimit(failures(), clientAddress);
  if (gate && !gate.allowed) throw errors.rateLimited(gate);
  const wellFormed = kind === "secret" ? isWellFormedApiKey(key) : isWellFormedPublicKey(key);
  if (!hash || !wellFormed || unknownKeys().has(hash)) return refuse(clientAddress);
  const pending = lookupsInFlight.get(hash);
  if (pending) {
    const found = await pending;
    // The request that held the lookup was refused before making it: try for ourselves.
    if (found === undefined) return lookUpKey(key, address, kind);
    if (found && found.kind === kind) return found;
    return refuse(clientAddress);
  }
  // Registered before any await, so concurrent requests with this key wait for it.
  const attempt = reserveAndFind(hash, clientAddress);
  const shared = attempt.then((a) => ("entry" in a ? a.entry : undefined)).finally(() => lookupsInFlight.delete(hash));
  // A failed lookup (the database away) is this request's to answer, below; with no other
  // request waiting on it, the shared copy's rejection would go unhandled.
  shared.catch(() => {});
  lookupsInFlight.set(hash, shared);
  const outcome = await attempt;
  if ("refusal" in outcome) throw outcome.refusal;
  if (!outcome.entry || outcome.entry.kind !== kind) throw errors.invalidApiKey();
  return outcome.entry;
}

/**
 * The database lookup of an uncached key, with the failure counted before
 * it (given back when the key is found): concurrent requests cannot all
 * pass a check made before any of them had failed. A key not found keeps
 * both points taken (its address's and all addresses').
 */
async function reserveAndFind(hash: string, clientAddress: string): Promise<{ entry: CacheEntry | null } | { refusal: Error }> {
  const reserved = await consumeRateLimit(failures(), clientAddress);
  if (reserved && !reserved.allowed) return { refusal: errors.rateLimited(reserved) };
  const global = await consumeRateLimit(failedLookups(), ALL_ADDRESSES);
  // Past the budget of all addresses, an address that has failed already
  // gets no lookup; one that has not (a real client whose key is not cached)
  // still gets its one, so a flood of forged keys cannot lock everyone out.
  if (global && !global.allowed && reserved && reserved.remaining < reserved.limit - 1) return { refusal: errors.rateLimited(global) };
  const entry = await findKey(hash);
  if (entry) await Promise.all([refundRateLimit(failures(), clientAddress), global?.allowed ? refundRateLimit(failedLookups(), ALL_ADDRESSES) : undefined]);
  return { entry };
}

/** The key of `hash` from the database, cached; null (remembered as unknown) when there is none or it is revoked. */
async function findKey(hash: string): Promise<CacheEntry | null> {
  const row = await prisma.apiKey.findUnique({
    where: { hash },
    select: { id: true, projectId: true, revokedAt: true, kind: true, project: { select: { number: true, allowedOrigins: true } } },
  });
  if (!row || row.revokedAt !== null) {
    unknownKeys().set(hash, true);
    return null;
  }
  const entry: CacheEntry = { keyId: row.id, projectId: row.projectId, kind: row.kind as KeyKind, projectNumber: row.project.number, allowedOrigins: row.project.allowedOrigins };
  keyCache().set(hash, entry);
  return entry;
}

async function refuse(clientAddress: string): Promise<never> {
  await countAgainstRateLimit(failures(), clientAddress);
  throw errors.invalidApiKey();
}

type Tx = Prisma.TransactionClient;

/** Creates a key for a project inside the caller's transaction; returns the plaintext once. */
export async function createProjectKey(tx: Tx, projectId: string, kind: KeyKind = "secret"): Promise<string> {
  const key = kind === "secret" ? generateApiKey() : generatePublicKey();
  await tx.apiKey.create({
    data: { projectId, kind, hash: sha256Hex(key), encrypted: encryptApiKey(key), last4: key.slice(-4) },
  });
  return key;
}

/**
 * Replaces a project's key: the old one is revoked in the same transaction
 * and dropped from this process's cache, and with REDIS_URL from every
 * instance's, so it stops working at once. Authorization (owner only) is the
 * caller's job.
 */
export async function rotateProjectKey(projectId: string, kind: KeyKind = "secret"): Promise<string> {
  const { apiKey, revokedHashes } = await transaction("key rotation", async (tx) => {
    const active = await tx.apiKey.findMany({ where: { projectId, kind, revokedAt: null }, select: { id: true, hash: true } });
    await tx.apiKey.updateMany({ where: { projectId, kind, revokedAt: null }, data: { revokedAt: new Date() } });
    const apiKey = await createProjectKey(tx, projectId, kind);
    return { apiKey, revokedHashes: active.map((k) => k.hash) };
  });
  await announceKeyChange({ revoked: revokedHashes, created: [sha256Hex(apiKey)] });
  return apiKey;
}

/** Drops a key from this process's cache (found revoked by another instance). */
export function forgetApiKey(keyId: string): void {
  for (const [hash, entry] of keyCache().entries()) {
    if (entry.keyId === keyId) keyCache().delete(hash);
  }
}

/** Drops every cached key of a project (project deleted), here and (REDIS_URL) in every instance. */
export function forgetProjectKeys(projectId: string): void {
  void announceKeyChange({ projectId });
}

function forgetProjectKeysHere(projectId: string): void {
  for (const [hash, entry] of keyCache().entries()) {
    if (entry.projectId === projectId) keyCache().delete(hash);
  }
}

/**
 * The project's current key in plaintext, for members (Projects page, details
 * API); null when there is none or it was sealed under another server secret.
 */
export async function readProjectKey(projectId: string, kind: KeyKind = "secret"): Promise<string | null> {
  const row = await prisma.apiKey.findFirst({
    where: { projectId, kind, revokedAt: null },
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

/** Takes the project's row lock in the caller's transaction (lib/projects/lock.ts; lib/projects sits above lib/keys, so it passes it in). */
export type ProjectLock = (tx: Tx, projectId: string) => Promise<void>;

/**
 * The project's public (DSN) key, made on first use: projects created
 * before DSNs existed get theirs the first time a member looks. First looks
 * that race (two tabs, the page and the API) are serialized on the
 * project's row (`lockProject`), so they all get the one key made;
 * otherwise the second would revoke the DSN the first had just shown.
 * Callers use readOrCreatePublicKey of lib/projects/dsn.ts.
 */
export async function readOrCreatePublicKeyWith(projectId: string, lockProject: ProjectLock): Promise<string | null> {
  const existing = await readProjectKey(projectId, "public");
  if (existing) return existing;
  const made = await prisma.$transaction(async (tx) => {
    await lockProject(tx, projectId);
    // One sealed under another TELLTALE_SECRET: rotating it is the owner's call.
    if ((await tx.apiKey.count({ where: { projectId, kind: "public", revokedAt: null } })) > 0) return null;
    return createProjectKey(tx, projectId, "public");
  });
  if (made === null) return readProjectKey(projectId, "public");
  await announceKeyChange({ created: [sha256Hex(made)] });
  return made;
}
