// The pages of the token and challenge listings, as privacyIDEA counts them.

/** The page a listing asks for: 1-based, 15 rows by default, at most 10 000. */
export function pageOf(q: { page?: number | undefined; pagesize?: number | undefined }) {
  const pagesize = q.pagesize && q.pagesize > 0 ? Math.min(q.pagesize, 10000) : 15;
  const page = q.page && q.page > 0 ? q.page : 1;
  return { page, pagesize, offset: (page - 1) * pagesize };
}

/** The previous and next page of a listing of `count` rows (null at either end). */
export function pageLinks(page: number, pagesize: number, count: number) {
  return { prev: page > 1 ? page - 1 : null, next: page * pagesize < count ? page + 1 : null };
}
