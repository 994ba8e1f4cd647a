/**
 * The provider with its FTS5 probe pointed at a virtual-table module that does
 * not exist: SQLite fails exactly as a build without FTS5 does.
 *
 * @module
 */

import { startProvider } from "../../project_knowledge/main.ts";

await startProvider({ ftsModule: "fts5_missing" });
