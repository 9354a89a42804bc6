"use client";

import { useState } from "react";
import { FilterForm, filterFieldClass, filterLabelClass } from "@/components/filter-form";
import { useHydrated, useTimeZoneMode } from "@/components/use-time-zone";
import { RANGES, TIME_RANGES } from "@/lib/events/time-ranges";

export type EventFilterValues = { level: string; q: string; range: string; from: string; to: string };

const RANGE_OPTIONS = [...RANGES.map((value) => ({ value, label: TIME_RANGES[value].label })), { value: "custom", label: "Custom range" }];

/**
 * The events page's filters. Selects apply at once. A custom range is typed
 * in the zone the reader chose for times (Local/UTC): `tz` carries that
 * zone's IANA name.
 */
export function EventFilters({ action, values }: { action: string; values: EventFilterValues }) {
  const [range, setRange] = useState(values.range);
  const mode = useTimeZoneMode();
  const hydrated = useHydrated();
  // The zone's name, not today's offset: the server reads each time with its
  // own date's offset (a July range typed in November, across a DST change).
  const tz = !hydrated ? "" : mode === "utc" ? "UTC" : Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zone = mode === "utc" ? "UTC" : "your time";

  return (
    <FilterForm action={action} label="Filter events">
      {(submit) => (
        <>
          <div className="flex flex-col gap-1">
            <label htmlFor="filter-level" className={filterLabelClass}>
              Level
            </label>
            <select id="filter-level" name="level" defaultValue={values.level} onChange={submit} className={filterFieldClass}>
              <option value="">All levels</option>
              <option value="error">Error</option>
              <option value="warn">Warn</option>
              <option value="info">Info</option>
            </select>
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor="filter-range" className={filterLabelClass}>
              Time range
            </label>
            <select
              id="filter-range"
              name="range"
              value={range}
              onChange={(event) => {
                setRange(event.target.value);
                if (event.target.value !== "custom") queueMicrotask(submit);
              }}
              className={filterFieldClass}
            >
              {RANGE_OPTIONS.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
          </div>
          {range === "custom" && (
            <>
              <div className="flex flex-col gap-1">
                <label htmlFor="filter-from" className={filterLabelClass}>
                  From ({zone})
                </label>
                <input id="filter-from" type="datetime-local" name="from" defaultValue={values.from} className={filterFieldClass} />
              </div>
              <div className="flex flex-col gap-1">
                <label htmlFor="filter-to" className={filterLabelClass}>
                  To ({zone})
                </label>
                <input id="filter-to" type="datetime-local" name="to" defaultValue={values.to} className={filterFieldClass} />
              </div>
              <input type="hidden" name="tz" value={tz} />
            </>
          )}
          <div className="flex min-w-48 flex-1 flex-col gap-1">
            <label htmlFor="filter-q" className={filterLabelClass}>
              Search messages
            </label>
            <input id="filter-q" type="search" name="q" defaultValue={values.q} placeholder="e.g. timeout" className={`${filterFieldClass} w-full`} />
          </div>
        </>
      )}
    </FilterForm>
  );
}
