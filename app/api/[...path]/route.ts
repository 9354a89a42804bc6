import { errors } from "@/lib/http/errors";
import { apiRoute } from "@/lib/edge/route";

export const dynamic = "force-dynamic";

/** Unknown API paths answer problem details too, not the HTML 404 page. */
const notFound = apiRoute(async (request) => {
  throw errors.notFound(`There is no API endpoint ${new URL(request.url).pathname}. See docs/api.md.`);
});

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
