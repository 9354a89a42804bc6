"use client";

import { useCallback, useRef, useState } from "react";

export type RevealResult = { ok: true; apiKey: string } | { ok: false; error: string };

/**
 * The project's plaintext key, fetched from the server only when the member
 * asks (Reveal, Copy), so it is never part of the page's HTML.
 */
export function useRevealedKey(reveal: () => Promise<RevealResult>) {
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const cached = useRef<string | null>(null);

  const fetchKey = useCallback(async (): Promise<string> => {
    if (cached.current) return cached.current;
    setLoading(true);
    setError(null);
    try {
      const result = await reveal();
      if (!result.ok) throw new Error(result.error);
      cached.current = result.apiKey;
      setApiKey(result.apiKey);
      return result.apiKey;
    } catch (cause) {
      const message = cause instanceof Error && cause.message ? cause.message : "Could not load the key.";
      setError(message);
      throw cause;
    } finally {
      setLoading(false);
    }
  }, [reveal]);

  return { apiKey, error, loading, fetchKey };
}
