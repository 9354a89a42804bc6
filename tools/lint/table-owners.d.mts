/** Types of table-owners.mjs (plain JavaScript, so ESLint loads it without a build). */
export declare const TABLE_OWNERS: Record<string, string>;
