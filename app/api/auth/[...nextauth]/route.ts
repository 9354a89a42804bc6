import { handlers } from "@/lib/auth/config";
import { withSignInClientIp } from "@/lib/auth/sign-in-request";

export const GET = handlers.GET;

// The request's client IP is handed to the sign-in rate limit (lib/auth/sign-in-request.ts).
export function POST(request: Request): Promise<Response> {
  return withSignInClientIp(request, () => handlers.POST(request as Parameters<typeof handlers.POST>[0]));
}
