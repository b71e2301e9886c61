/**
 * The memory bounds of Dataset → Compare, each refused with a clear error instead of growing until n8n dies.
 *
 * - `maxDomains`: records of one snapshot. The service's index holds about 0.9 million domains; 5 million leaves
 *   five times that room. Compare keeps 53 bytes a domain at 1 million, 66 at 5 million (typed arrays: the name
 *   table with its growth room and hash index, the kept-record slots), so the bound caps that at about 330 MB.
 * - `maxKeptBytes`: the older records kept between the second and the third pass (those of the changes). The
 *   Items and Batches outputs are bounded earlier by "Max Records in Memory"; this bounds File and Sub-Workflow.
 *
 * An object, not constants, so that tests can lower the bounds over HTTP (restore them after).
 */
export const COMPARE_LIMITS = {
	maxDomains: 5_000_000,
	maxKeptBytes: 512 * 1024 * 1024,
};
