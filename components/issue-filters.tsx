"use client";

import { FilterForm, filterFieldClass, filterLabelClass } from "@/components/filter-form";
import { RANGES, TIME_RANGES } from "@/lib/events/time-ranges";

export type IssueFilterValues = { status: string; level: string; q: string; range: string; sort: string; environment: string; release: string; tag: string[] };

// Short labels: the three selects share one row on a phone.
const ISSUE_RANGES = RANGES.map((value) => ({ value, label: TIME_RANGES[value].short }));

const SORTS = [
  { value: "last_seen", label: "Last seen" },
  { value: "first_seen", label: "First seen" },
  { value: "events", label: "Events" },
  { value: "total", label: "Total" },
] as const;

const TEXT_FILTERS = [
  { name: "environment", label: "Environment", placeholder: "production" },
  { name: "release", label: "Release", placeholder: "1.4.2" },
] as const;

/** The issues list's filters (the status is chosen with the tabs above and kept here). */
export function IssueFilters({ action, values }: { action: string; values: IssueFilterValues }) {
  return (
    <FilterForm action={action} label="Filter issues">
      {(submit) => (
        <>
          {values.status !== "open" && <input type="hidden" name="status" value={values.status} />}
          <div className="grid w-full grid-cols-3 gap-2 sm:flex sm:w-auto">
            <div className="flex min-w-0 flex-col gap-1">
              <label htmlFor="issue-level" className={filterLabelClass}>
                Level
              </label>
              <select id="issue-level" name="level" defaultValue={values.level} onChange={submit} className={`${filterFieldClass} w-full sm:w-auto`}>
                <option value="">All levels</option>
                <option value="error">Error</option>
                <option value="warn">Warn</option>
                <option value="info">Info</option>
              </select>
            </div>
            <div className="flex min-w-0 flex-col gap-1">
              <label htmlFor="issue-range" className={filterLabelClass}>
                Period
              </label>
              <select id="issue-range" name="range" defaultValue={values.range} onChange={submit} className={`${filterFieldClass} w-full sm:w-auto`}>
                {ISSUE_RANGES.map((r) => (
                  <option key={r.value} value={r.value}>
                    {r.label}
                  </option>
                ))}
              </select>
            </div>
            <div className="flex min-w-0 flex-col gap-1">
              <label htmlFor="issue-sort" className={filterLabelClass}>
                Sort by
              </label>
              <select id="issue-sort" name="sort" defaultValue={values.sort} onChange={submit} className={`${filterFieldClass} w-full sm:w-auto`}>
                {SORTS.map((s) => (
                  <option key={s.value} value={s.value}>
                    {s.label}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <div className="flex min-w-48 flex-1 flex-col gap-1">
            <label htmlFor="issue-q" className={filterLabelClass}>
              Search issues
            </label>
            <input id="issue-q" type="search" name="q" defaultValue={values.q} placeholder="e.g. timeout" className={`${filterFieldClass} w-full`} />
          </div>
          <div className="grid w-full grid-cols-3 gap-2 sm:flex sm:w-auto">
            {TEXT_FILTERS.map((f) => (
              <div key={f.name} className="flex min-w-0 flex-col gap-1">
                <label htmlFor={`issue-${f.name}`} className={filterLabelClass}>
                  {f.label}
                </label>
                <input id={`issue-${f.name}`} name={f.name} defaultValue={values[f.name]} placeholder={f.placeholder} className={`${filterFieldClass} w-full sm:w-32`} />
              </div>
            ))}
            <div className="flex min-w-0 flex-col gap-1">
              <label htmlFor="issue-tag" className={filterLabelClass}>
                Tag
              </label>
              <input id="issue-tag" name="tag" defaultValue={values.tag[0] ?? ""} placeholder="key:value" className={`${filterFieldClass} w-full sm:w-36`} />
              {values.tag.slice(1).map((t) => (
                <input key={t} type="hidden" name="tag" value={t} />
              ))}
            </div>
          </div>
        </>
      )}
    </FilterForm>
  );
}
