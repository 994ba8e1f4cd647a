// related-content: a Context Source Graph plugin (JSON ABI 2) in
// AssemblyScript. For every read item it looks the item's path up in a map
// file committed in the plugin's folder (default `related.json`, or
// args.map) and attaches the related documents as links pinned to the
// read's commit SHA. See ../README.md.

import { Json, Kind, parse, quote } from "./json";

@external("sourcegraph", "read_file")
declare function read_file(pointer: i32, length: i32): i64;

@external("sourcegraph", "last_error")
declare function last_error(): i64;

// ---- ABI 2: memory is exported by the compiler; these move bytes in and out.

export function alloc(length: i32): i32 {
  // Never 0, even for an empty buffer.
  return i32(heap.alloc(usize(length > 0 ? length : 1)));
}

export function dealloc(pointer: i32, length: i32): void {
  heap.free(usize(pointer));
}

function unpack(packed: i64): string {
  const pointer = i32(u64(packed) >>> 32);
  const length = i32(packed & 0xffffffff);
  const text = String.UTF8.decodeUnsafe(usize(pointer), usize(length));
  heap.free(usize(pointer)); // host buffers belong to the guest
  return text;
}

function output(json: string): i64 {
  const bytes = String.UTF8.encode(json);
  const length = bytes.byteLength;
  const pointer = alloc(length);
  memory.copy(usize(pointer), changetype<usize>(bytes), usize(length));
  return (i64(pointer) << 32) | i64(length);
}

function readText(path: string): string | null {
  const bytes = String.UTF8.encode(path);
  const packed = read_file(i32(changetype<usize>(bytes)), bytes.byteLength);
  if (packed == 0) {
    unpack(last_error()); // the reason is host detail: not echoed to users
    return null;
  }
  return unpack(packed);
}

// ---- The map: parsed once per instance. An instance serves one repository,
// commit, folder and args, so the cache can never be stale.

let cachedMap: Json | null = null;
let cachedMapPath: string = "";
let mapMissing: bool = false;

function loadMap(path: string): Json | null {
  if (path == cachedMapPath && (cachedMap != null || mapMissing)) return cachedMap;
  cachedMapPath = path;
  const text = readText(path);
  cachedMap = text == null ? null : parse(text!);
  mapMissing = cachedMap == null;
  return cachedMap;
}

function joinPath(root: string, path: string): string {
  return root.length == 0 ? path : root + "/" + path;
}

export function enrich(pointer: i32, length: i32): i64 {
  const input = parse(String.UTF8.decodeUnsafe(usize(pointer), usize(length)));
  if (input == null || input.kind != Kind.Object) return output('{"attachments":[]}');
  const args = input.get("args");
  const mapPath = args != null ? args.string("map", "related.json") : "related.json";
  const map = loadMap(mapPath);
  const files = input.get("files");
  if (map == null || files == null || files.kind != Kind.Array) {
    return output('{"attachments":[]}');
  }
  const related = map.get("related");
  const base = map.string("base_url", "");
  const repository = input.string("repository", "");
  const commit = input.string("commit", "");
  const root = input.string("root", "");
  let out = '{"attachments":[';
  let first = true;
  for (let i = 0; i < files.items.length; i++) {
    const file = files.items[i];
    const documents = related != null ? related.get(file.string("path", "")) : null;
    if (documents == null || documents.kind != Kind.Array || documents.items.length == 0) continue;
    let text = "related:";
    for (let j = 0; j < documents.items.length; j++) {
      const document = documents.items[j];
      if (document.kind != Kind.String) continue;
      // Pinned to the commit the read came from; relative to the site when no base_url.
      text += "\n- " + base + "/" + repository + "/blob/" + commit + "/" +
        joinPath(root, document.text);
    }
    if (!first) out += ",";
    first = false;
    out += '{"item_id":' + quote(file.string("item_id", "")) + ',"text":' + quote(text) + "}";
  }
  return output(out + "]}");
}
