"use client";

import { useFormStatus } from "react-dom";
import { Button, type ButtonSize, type ButtonVariant } from "@/components/button";

/** A form's submit button that shows the pending state and prevents double submits. */
export function SubmitButton({
  children,
  pendingLabel,
  variant = "primary",
  size,
  disabled,
  className,
}: {
  children: React.ReactNode;
  pendingLabel?: string;
  variant?: ButtonVariant;
  size?: ButtonSize;
  disabled?: boolean;
  className?: string;
}) {
  const { pending } = useFormStatus();
  return (
    <Button type="submit" variant={variant} size={size} disabled={disabled || pending} aria-disabled={disabled || pending} className={className}>
      {pending && pendingLabel ? pendingLabel : children}
    </Button>
  );
}
