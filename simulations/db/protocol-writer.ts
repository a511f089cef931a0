/**
 * The bytes of the protocol messages the engine sends PGlite, written into one buffer per call.
 *
 * A statement's call is a Bind, an Execute and a Sync (with the clock's lead statement ahead of
 * it, two Binds and two Executes). Built part by part and joined, that was four or five fresh
 * `Uint8Array`s a statement, and in Chromium's worker an ArrayBuffer allocation is dear: joining
 * the parts was the engine's largest single function in a profile of the tab's Explore
 * (docs/profile.md). `MessageWriter` writes every part straight into one buffer it keeps and
 * reuses: PGlite reads a message during the call that sends it and keeps nothing of it, so the
 * buffer is free again once the call has returned (`release`). A message written while the
 * buffer is still in use gets a fresh array, so two calls can never share bytes.
 *
 * Guarantees: the bytes are exactly PGlite's own serializer's (`serialize.bind`), whose path is
 * taken for anything but strings and nulls and for strings holding surrogates.
 */
import { protocol } from '@electric-sql/pglite';

const { serialize } = protocol;
const utf8 = new TextEncoder();
/** Only ASCII: one byte per character. */
const ASCII = /^[\x00-\x7f]*$/;
/** UTF-16 surrogates: the one case where PGlite's byte count may differ from the encoding's. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** A part of a message: bytes as they are, or the Bind of a named statement with its values. */
export type Part = Uint8Array | { statement: string; values: readonly unknown[] };

/** A Bind's size and each value's length (-1 for null) and, when not plain ASCII, its UTF-8 bytes. */
interface BindLayout {
  size: number;
  lengths: number[];
  encoded: (Uint8Array | null)[];
}

/** The layout of a Bind written here, or null when PGlite's serializer must write it. */
function bindLayout(statement: string, values: readonly unknown[]): BindLayout | null {
  // Statement names here are ASCII; anything else takes PGlite's path.
  if (!ASCII.test(statement) || statement.includes('\0')) return null;
  const lengths: number[] = [];
  const encoded: (Uint8Array | null)[] = [];
  let size = 1 + 4 + 1 + statement.length + 1 + 2 + 2 * values.length + 2 + 2;
  for (const v of values) {
    if (v === null) {
      lengths.push(-1);
      encoded.push(null);
      size += 4;
    } else if (typeof v === 'string' && ASCII.test(v)) {
      lengths.push(v.length);
      encoded.push(null);
      size += 4 + v.length;
    } else if (typeof v === 'string' && !SURROGATE.test(v)) {
      const bytes = utf8.encode(v);
      lengths.push(bytes.length);
      encoded.push(bytes);
      size += 4 + bytes.length;
    } else {
      return null;
    }
  }
  return { size, lengths, encoded };
}

/** Write the Bind laid out by `layout` at `out[at]`; returns where it ends. Every byte is written (`out` may hold old bytes). */
function writeBind(out: Uint8Array, at: number, statement: string, values: readonly unknown[], { size, lengths, encoded }: BindLayout): number {
  const int32 = (n: number) => {
    out[at] = n >>> 24;
    out[at + 1] = n >>> 16;
    out[at + 2] = n >>> 8;
    out[at + 3] = n;
    at += 4;
  };
  const uint16 = (n: number) => {
    out[at] = n >>> 8;
    out[at + 1] = n;
    at += 2;
  };
  out[at++] = 66; // 'B'
  int32(size - 1);
  out[at++] = 0; // unnamed portal
  for (let i = 0; i < statement.length; i++) out[at++] = statement.charCodeAt(i);
  out[at++] = 0;
  uint16(values.length);
  for (let k = 0; k < values.length; k++) uint16(0); // one format code per parameter: text
  uint16(values.length);
  for (let k = 0; k < values.length; k++) {
    int32(lengths[k]);
    const bytes = encoded[k];
    if (bytes) {
      out.set(bytes, at);
      at += bytes.length;
    } else if (lengths[k] > 0) {
      const v = values[k] as string;
      for (let i = 0; i < v.length; i++) out[at++] = v.charCodeAt(i);
    }
  }
  uint16(0); // no result format codes: all text
  return at;
}

/**
 * Exactly the bytes of PGlite's `serialize.bind({ statement, values })` (unnamed portal, text
 * formats), written in one pass: PGlite's writer took ~15 µs a Bind, several times a schedule.
 */
export function bindMessage(statement: string, values: readonly unknown[]): Uint8Array {
  const layout = bindLayout(statement, values);
  if (!layout) return serialize.bind({ statement, values: values as (string | null)[] });
  const out = new Uint8Array(layout.size);
  writeBind(out, 0, statement, values, layout);
  return out;
}

/** Writes messages into a buffer it reuses; see the top of this file. */
export class MessageWriter {
  private buffer = new Uint8Array(4096);
  private busy = false;

  /** `parts` as one message: in the writer's buffer when it is free (then `release` it), else in a new array. */
  write(parts: readonly Part[]): Uint8Array {
    let size = 0;
    const layouts: (BindLayout | Uint8Array | null)[] = [];
    for (const part of parts) {
      if (part instanceof Uint8Array) {
        layouts.push(null);
        size += part.length;
        continue;
      }
      const layout = bindLayout(part.statement, part.values) ?? serialize.bind({ statement: part.statement, values: part.values as (string | null)[] });
      layouts.push(layout);
      size += layout instanceof Uint8Array ? layout.length : layout.size;
    }
    let out: Uint8Array;
    if (this.busy) {
      out = new Uint8Array(size);
    } else {
      if (this.buffer.length < size) this.buffer = new Uint8Array(Math.max(size, 2 * this.buffer.length));
      this.busy = true;
      out = this.buffer.subarray(0, size);
    }
    let at = 0;
    parts.forEach((part, k) => {
      const layout = layouts[k];
      if (part instanceof Uint8Array) {
        out.set(part, at);
        at += part.length;
      } else if (layout instanceof Uint8Array) {
        out.set(layout, at);
        at += layout.length;
      } else {
        at = writeBind(out, at, part.statement, part.values, layout!);
      }
    });
    return out;
  }

  /** The call that sent `message` has returned: the buffer it was written in may be written again. */
  release(message: Uint8Array): void {
    if (message.buffer === this.buffer.buffer) this.busy = false;
  }
}
