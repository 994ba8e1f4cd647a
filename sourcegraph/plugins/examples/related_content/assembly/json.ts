// A small JSON reader and writer for the plugin: objects, arrays, strings
// (with every escape), numbers, true, false and null. Enough for the host's
// input and the plugin's map file; it never throws (bad input gives null).

export const enum Kind {
  Null,
  Bool,
  Number,
  String,
  Array,
  Object,
}

export class Json {
  kind: Kind = Kind.Null;
  flag: bool = false;
  number: f64 = 0;
  text: string = "";
  items: Json[] = [];
  keys: string[] = [];

  /** The member `key` of an object, or null. */
  get(key: string): Json | null {
    if (this.kind != Kind.Object) return null;
    for (let i = 0; i < this.keys.length; i++) {
      if (this.keys[i] == key) return this.items[i];
    }
    return null;
  }

  /** The string member `key`, or `fallback`. */
  string(key: string, fallback: string): string {
    const value = this.get(key);
    return value != null && value.kind == Kind.String ? value.text : fallback;
  }
}

class Reader {
  at: i32 = 0;
  failed: bool = false;
  constructor(public source: string) {}

  peek(): i32 {
    return this.at < this.source.length ? this.source.charCodeAt(this.at) : -1;
  }

  space(): void {
    while (true) {
      const c = this.peek();
      if (c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09) this.at++;
      else return;
    }
  }

  literal(word: string): bool {
    if (this.source.substr(this.at, word.length) != word) {
      this.failed = true;
      return false;
    }
    this.at += word.length;
    return true;
  }

  // One function on purpose: it follows the JSON grammar branch by branch,
  // and AssemblyScript has no closures to pass the shared cursor around.
  value(depth: i32): Json {
    const out = new Json();
    if (depth > 64) {
      this.failed = true;
      return out;
    }
    this.space();
    const c = this.peek();
    if (c == 0x7b) {
      out.kind = Kind.Object;
      this.at++;
      this.space();
      if (this.peek() == 0x7d) {
        this.at++;
        return out;
      }
      while (!this.failed) {
        this.space();
        if (this.peek() != 0x22) {
          this.failed = true;
          break;
        }
        out.keys.push(this.string());
        this.space();
        if (this.peek() != 0x3a) {
          this.failed = true;
          break;
        }
        this.at++;
        out.items.push(this.value(depth + 1));
        this.space();
        const next = this.peek();
        this.at++;
        if (next == 0x7d) break;
        if (next != 0x2c) this.failed = true;
      }
    } else if (c == 0x5b) {
      out.kind = Kind.Array;
      this.at++;
      this.space();
      if (this.peek() == 0x5d) {
        this.at++;
        return out;
      }
      while (!this.failed) {
        out.items.push(this.value(depth + 1));
        this.space();
        const next = this.peek();
        this.at++;
        if (next == 0x5d) break;
        if (next != 0x2c) this.failed = true;
      }
    } else if (c == 0x22) {
      out.kind = Kind.String;
      out.text = this.string();
    } else if (c == 0x74) {
      out.kind = Kind.Bool;
      out.flag = this.literal("true");
    } else if (c == 0x66) {
      out.kind = Kind.Bool;
      this.literal("false");
    } else if (c == 0x6e) {
      this.literal("null");
    } else {
      out.kind = Kind.Number;
      const start = this.at;
      while (true) {
        const d = this.peek();
        if ((d >= 0x30 && d <= 0x39) || d == 0x2d || d == 0x2b || d == 0x2e || d == 0x65 || d == 0x45) {
          this.at++;
        } else break;
      }
      if (this.at == start) this.failed = true;
      else out.number = parseFloat(this.source.substring(start, this.at));
    }
    return out;
  }

  string(): string {
    this.at++; // opening quote
    let out = "";
    let start = this.at;
    while (true) {
      const c = this.peek();
      if (c < 0) {
        this.failed = true;
        return out;
      }
      if (c == 0x22) {
        out += this.source.substring(start, this.at);
        this.at++;
        return out;
      }
      if (c != 0x5c) {
        this.at++;
        continue;
      }
      out += this.source.substring(start, this.at);
      const e = this.source.charCodeAt(this.at + 1);
      this.at += 2;
      if (e == 0x6e) out += "\n";
      else if (e == 0x74) out += "\t";
      else if (e == 0x72) out += "\r";
      else if (e == 0x62) out += "\b";
      else if (e == 0x66) out += "\f";
      else if (e == 0x75) {
        out += String.fromCharCode(i32(parseInt(this.source.substr(this.at, 4), 16)));
        this.at += 4;
      } else out += String.fromCharCode(e);
      start = this.at;
    }
  }
}

/** Parses `source`, or returns null when it is not JSON. */
export function parse(source: string): Json | null {
  const reader = new Reader(source);
  const value = reader.value(0);
  reader.space();
  return reader.failed || reader.at != source.length ? null : value;
}

/** `text` as a JSON string literal. */
export function quote(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c == 0x22) out += '\\"';
    else if (c == 0x5c) out += "\\\\";
    else if (c == 0x0a) out += "\\n";
    else if (c < 0x20) out += "\\u00" + (c < 0x10 ? "0" : "") + c.toString(16);
    else out += String.fromCharCode(c);
  }
  return out + '"';
}
