/**
 * A tiny bar chart of an issue's events per bucket (oldest first), in plain
 * SVG: dozens per page cost nothing, and it renders without script. The
 * label says what it shows in words.
 */
export function Sparkline({ values, label, className = "" }: { values: number[]; label: string; className?: string }) {
  const width = 96;
  const height = 24;
  const max = Math.max(1, ...values);
  const slot = width / Math.max(1, values.length);
  const bar = Math.max(1, slot - 1);
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="none"
      className={`h-6 w-24 shrink-0 text-indigo-500 dark:text-indigo-400 ${className}`.trim()}
    >
      <title>{label}</title>
      <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} stroke="currentColor" strokeOpacity="0.25" />
      {values.map((value, i) => {
        if (value === 0) return null;
        // At least 2px, so that a single event is visible beside a spike.
        const h = Math.max(2, (value / max) * (height - 1));
        return <rect key={i} x={i * slot} y={height - h} width={bar} height={h} rx="0.5" fill="currentColor" />;
      })}
    </svg>
  );
}
