/** A stored timestamp as ISO-8601 (null stays null): how every API response writes instants. */
export const iso = (d: Date | string | null | undefined): string | null =>
  d ? new Date(d).toISOString() : null;
