"use client";

import { useEffect, useState } from "react";
import { Button, type ButtonSize, type ButtonVariant } from "@/components/button";
import { copyText } from "@/components/clipboard";

type Status = "idle" | "copied" | "failed";

/** Copies `text` (or what `getText` resolves to) and says so for a moment. */
export function CopyButton({
  text,
  getText,
  label = "Copy",
  ariaLabel,
  variant = "secondary",
  size = "sm",
}: {
  text?: string;
  getText?: () => Promise<string>;
  label?: string;
  ariaLabel?: string;
  variant?: ButtonVariant;
  size?: ButtonSize;
}) {
  const [status, setStatus] = useState<Status>("idle");
  useEffect(() => {
    if (status === "idle") return;
    const timer = setTimeout(() => setStatus("idle"), 2000);
    return () => clearTimeout(timer);
  }, [status]);

  async function copy() {
    try {
      await copyText(text ?? (getText ? getText() : ""));
      setStatus("copied");
    } catch {
      setStatus("failed");
    }
  }

  return (
    <Button variant={variant} size={size} onClick={copy} aria-label={ariaLabel}>
      <span aria-live="polite">{status === "copied" ? "Copied" : status === "failed" ? "Copy failed" : label}</span>
    </Button>
  );
}
