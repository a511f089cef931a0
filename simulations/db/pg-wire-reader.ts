/**
 * Reads a Postgres back-end's protocol output as PGlite's own parser does, without its copies.
 *
 * PGlite's `execProtocol` copies each chunk Postgres writes, copies it again into its receive
 * buffer, parses it with a reader that slices an `ArrayBuffer` for every string it decodes, and
 * copies the whole response once more at the end: at the engine's rate of a few statements a
 * schedule, that was the largest share of PGlite's JavaScript in a profile. `ResponseReader` takes
 * the chunks `execProtocolRawStream` hands out (views of PGlite's memory, valid only during the
 * call) and decodes them on the spot.
 *
 * Guarantees: the messages are the objects PGlite's parser makes: the same classes (`messages`),
 * the same singletons, the same fields. The messages the engine meets on every statement
 * (RowDescription, DataRow, CommandComplete, ReadyForQuery, ParameterDescription and the
 * completions) are decoded here; every other kind (errors, notices, notifications, copy data, …)
 * is handed to PGlite's own parser, so its shape cannot drift. A message split across chunks is
 * kept until its last byte arrives.
 */
import { messages as pgMessages, protocol } from '@electric-sql/pglite';

/** A back-end message, as PGlite's parser returns it. */
export type BackendMessage = { name: string; length: number; [k: string]: unknown };

const { DataRowMessage, CommandCompleteMessage, ReadyForQueryMessage, RowDescriptionMessage, ParameterDescriptionMessage, Field } = pgMessages;

/** Messages without a body: PGlite's parser returns one shared object for each. */
const SINGLETONS: Record<number, BackendMessage | undefined> = {
  0x31: pgMessages.parseComplete as BackendMessage,
  0x32: pgMessages.bindComplete as BackendMessage,
  0x33: pgMessages.closeComplete as BackendMessage,
  0x6e: pgMessages.noData as BackendMessage,
  0x73: pgMessages.portalSuspended as BackendMessage,
  0x49: pgMessages.emptyQuery as BackendMessage,
};

const utf8 = new TextDecoder('utf-8');

/** Strings up to this many bytes are decoded by hand when they are plain ASCII. */
const SHORT = 64;

/** The UTF-8 text of `bytes[start, end)`, as TextDecoder gives it (invalid bytes become U+FFFD). */
function text(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= SHORT) {
    let s = '';
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (b >= 0x80) return utf8.decode(bytes.subarray(start, end));
      s += String.fromCharCode(b);
    }
    return s;
  }
  return utf8.decode(bytes.subarray(start, end));
}

const int32 = (b: Uint8Array, i: number) => (b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3];
const int16 = (b: Uint8Array, i: number) => ((b[i] << 24) | (b[i + 1] << 16)) >> 16;
const uint16 = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1];

/** Where the NUL ending the string at `i` is. */
function nul(b: Uint8Array, i: number): number {
  while (b[i] !== 0) i++;
  return i;
}

/**
 * The message whose type byte is at `at` in `b`, of `length` bytes after the type (its length
 * field included), as PGlite's parser makes it.
 */
function decode(b: Uint8Array, at: number, length: number): BackendMessage {
  const code = b[at];
  const single = SINGLETONS[code];
  if (single) return single;
  let i = at + 5;
  switch (code) {
    case 0x44: {
      // DataRow
      const count = int16(b, i);
      i += 2;
      const fields: (string | null)[] = new Array(count);
      for (let c = 0; c < count; c++) {
        const len = int32(b, i);
        i += 4;
        if (len === -1) fields[c] = null;
        else {
          fields[c] = text(b, i, i + len);
          i += len;
        }
      }
      return new DataRowMessage(length, fields) as unknown as BackendMessage;
    }
    case 0x43:
      // CommandComplete
      return new CommandCompleteMessage(length, text(b, i, nul(b, i))) as unknown as BackendMessage;
    case 0x5a:
      // ReadyForQuery
      return new ReadyForQueryMessage(length, text(b, i, i + 1)) as unknown as BackendMessage;
    case 0x54: {
      // RowDescription
      const count = int16(b, i);
      i += 2;
      const message = new RowDescriptionMessage(length, count);
      for (let c = 0; c < count; c++) {
        const end = nul(b, i);
        const name = text(b, i, end);
        i = end + 1;
        message.fields[c] = new Field(name, int32(b, i), int16(b, i + 4), int32(b, i + 6), int16(b, i + 10), int32(b, i + 12), int16(b, i + 16) === 0 ? 0 : 1);
        i += 18;
      }
      return message as unknown as BackendMessage;
    }
    case 0x74: {
      // ParameterDescription
      const count = uint16(b, i);
      i += 2;
      const message = new ParameterDescriptionMessage(length, count);
      for (let c = 0; c < count; c++, i += 4) message.dataTypeIDs[c] = int32(b, i);
      return message as unknown as BackendMessage;
    }
    default: {
      // Anything else (errors, notices, …): PGlite's own parser, on a copy of this one message.
      let parsed: BackendMessage | undefined;
      new protocol.Parser().parse(b.slice(at, at + 1 + length), (m) => {
        parsed = m as unknown as BackendMessage;
      });
      return parsed!;
    }
  }
}

/** Collects the messages of one protocol call from the chunks Postgres writes. */
export class ResponseReader {
  readonly messages: BackendMessage[] = [];
  /** The start of a message whose end has not arrived yet (a copy). */
  private rest: Uint8Array | null = null;

  /** Decode what `chunk` completes. `chunk` may be a view of memory that changes after the call. */
  push(chunk: Uint8Array): void {
    let b = chunk;
    if (this.rest) {
      b = new Uint8Array(this.rest.length + chunk.length);
      b.set(this.rest);
      b.set(chunk, this.rest.length);
      this.rest = null;
    }
    let at = 0;
    while (at + 5 <= b.length) {
      const length = int32(b, at + 1) >>> 0;
      if (length === 0 || at + 1 + length > b.length) break;
      this.messages.push(decode(b, at, length));
      at += 1 + length;
    }
    if (at < b.length) this.rest = b.slice(at);
  }

  /** Whether bytes of an unfinished message are left over (a truncated response). */
  get incomplete(): boolean {
    return this.rest !== null;
  }
}
