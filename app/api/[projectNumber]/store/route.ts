import { otherMethods, sentryPreflight } from "@/lib/edge/route";
import { postSentryStore } from "@/lib/edge/ingest-routes";

export const dynamic = "force-dynamic";

/** POST /api/<projectNumber>/store/: what a Sentry SDK sends, authenticated by the DSN's public key. */
export const POST = postSentryStore;
export const OPTIONS = sentryPreflight;

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
