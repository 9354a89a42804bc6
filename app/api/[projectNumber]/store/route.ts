import { otherMethods, sentryPreflight, sentryRoute } from "@/lib/edge/route";
import { ingestSentryRequest } from "@/lib/sentry/ingest";

export const dynamic = "force-dynamic";

/** POST /api/<projectNumber>/store/: what a Sentry SDK sends, authenticated by the DSN's public key. */
export const POST = sentryRoute(({ request, params }) => ingestSentryRequest(request, "store", String(params.projectNumber)));
export const OPTIONS = sentryPreflight;

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
