// What a search of the audit log asks for, and the part of it the caller's policies set.
/** What the caller's policies let it see (set by scopeToCaller, never from request parameters). */
export interface AuditRestriction {
  /** Only the rows of this user. */
  owner?: { user: string; realm: string };

  /** Only rows of these realms, or written by this administrator. */
  realms?: { realms: string[]; administrator: string };

  /** Columns removed from entries and from auditcolumns. */
  hiddenColumns?: string[];
}

export interface AuditQuery {
  /** Column filters by API name; `*` is a wildcard, a leading `!` negates. */
  filters: Record<string, string>;
  restriction?: AuditRestriction;

  /** Only rows newer than this span, e.g. `1h`, `7d`. */
  timelimit?: string | undefined;
  page?: number;
  pageSize?: number;
  sortorder?: 'asc' | 'desc';
}
