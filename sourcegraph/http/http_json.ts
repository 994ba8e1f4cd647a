/**
 * The plain HTTP API's JSON, mapped from the domain results. Every field
 * name is Go-style PascalCase: the File JSON and the search result keep the
 * names compatible clients already parse, and everything else the API
 * returns follows the same convention. Values that are data rather than
 * fields (branch names in `Heads`, a plugin's own metadata document) are
 * passed through unchanged.
 *
 * @module
 */

import type { FileRead } from "../read/file_read.ts";

/** The File JSON of one read. */
export function fileJson(file: FileRead): Record<string, unknown> {
  return {
    Path: file.path,
    BlobOID: file.blobOid,
    Commit: file.commit,
    Kind: file.kind,
    Encoding: file.encoding,
    Content: file.content,
    ReturnedStartLine: file.returnedStartLine,
    ReturnedEndLine: file.returnedEndLine,
    NextStartLine: file.nextStartLine,
    Truncated: file.truncated,
    HasMore: file.hasMore,
    IsLFSPointer: file.isLfsPointer,
    Via: file.via,
    FollowError: file.followError,
  };
}
