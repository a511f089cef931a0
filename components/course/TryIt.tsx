'use client';
/**
 * "Try it": HMAC-SHA256 and SHA-256 computed in this tab with @noble/hashes — no network. Signing
 * the same message with the same secret gives the same signature every time (a transformation's
 * replay is harmless), and the SHA-256 of a string here is the very hash `opKey` is made of
 * (lib/op-key.ts), cross-checked against the browser's own Web Crypto and a terminal command, so
 * a key can be checked by hand.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { shellQuote } from '@/simulations/course/shell-quote';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { useEffect, useId, useMemo, useState } from 'react';
import { canonical, opKey, sha256Hex } from '@/lib/op-key';

const hmacHex = (secret: string, message: string) => bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(message)));
const sha256Direct = (text: string) => bytesToHex(sha256(utf8ToBytes(text)));

const input =
  'mt-1 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 font-mono text-sm text-slate-900 shadow-sm focus-visible:border-teal-600 focus-visible:outline-2 focus-visible:outline-teal-600 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100';
const card = 'rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900';

export function TryIt() {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <HmacPanel />
      <HashPanel />
    </div>
  );
}

function HmacPanel() {
  const id = useId();
  const [message, setMessage] = useState('order-1042:charge');
  const [secret, setSecret] = useState('whsec_demo');
  const signature = useMemo(() => hmacHex(secret, message), [secret, message]);
  // Each press signs again from scratch; the list shows the answers side by side.
  const [runs, setRuns] = useState<{ message: string; secret: string; signature: string }[]>([]);
  const sameInputs = runs.filter((r) => r.message === message && r.secret === secret);
  const allSame = sameInputs.length > 1 && sameInputs.every((r) => r.signature === sameInputs[0]!.signature);

  return (
    <section aria-labelledby={`${id}-h`} className={card} data-testid="try-hmac">
      <h2 id={`${id}-h`} className="text-lg font-semibold text-slate-900 dark:text-white">
        HMAC-SHA256: a transformation
      </h2>
      <p className="mt-1 text-sm leading-6 text-slate-600 dark:text-slate-300">
        Signing takes an input and returns an output; it creates nothing anywhere. Sign the same message with the same secret as often as
        you like: the signature never changes. That is why replaying a transformation costs at most another credit, never correctness.
      </p>
      <label htmlFor={`${id}-m`} className="mt-4 block text-sm font-medium text-slate-800 dark:text-slate-200">
        Message
      </label>
      <input id={`${id}-m`} className={input} value={message} onChange={(e) => setMessage(e.target.value)} spellCheck={false} autoComplete="off" />
      <label htmlFor={`${id}-s`} className="mt-3 block text-sm font-medium text-slate-800 dark:text-slate-200">
        Secret
      </label>
      <input id={`${id}-s`} className={input} value={secret} onChange={(e) => setSecret(e.target.value)} spellCheck={false} autoComplete="off" />
      <Output label="Signature (hex)" value={signature} testId="hmac-output" />
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <button
          type="button"
          onClick={() => setRuns((r) => [...r.slice(-4), { message, secret, signature: hmacHex(secret, message) }])}
          className="rounded-lg bg-teal-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-teal-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400"
        >
          Sign again
        </button>
        <p role="status" aria-live="polite" data-testid="hmac-verdict" className="text-sm text-slate-700 dark:text-slate-300">
          {sameInputs.length === 0
            ? 'Press it twice to compare.'
            : sameInputs.length === 1
              ? 'Signed once. Press again.'
              : allSame
                ? `Signed ${sameInputs.length} times: the same signature every time.`
                : 'The signatures differ.'}
        </p>
      </div>
      {runs.length > 0 && (
        <ol aria-label="Signatures so far" className="mt-3 space-y-2 text-xs text-slate-600 dark:text-slate-400" data-testid="hmac-runs">
          {runs.map((r, i) => (
            <li key={i} className="rounded-md border border-slate-200 px-2 py-1 dark:border-slate-800">
              <span className="font-sans">
                {i + 1}. message {JSON.stringify(r.message)}, secret {JSON.stringify(r.secret)}
              </span>
              <span className="block font-mono break-all text-slate-800 dark:text-slate-200">{r.signature}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function HashPanel() {
  const id = useId();
  const [text, setText] = useState('order-1042:charge');
  const [kind, setKind] = useState('charge');
  const [identity, setIdentity] = useState('{ "orderId": 1042 }');
  const browser = useWebCryptoSha256(text);
  const viaLib = useMemo(() => sha256Hex(text), [text]);

  const key = useMemo(() => {
    try {
      const value: unknown = JSON.parse(identity);
      const preimage = `${kind}:${canonical(value)}`;
      return { ok: true as const, preimage, key: opKey(kind, value), direct: sha256Direct(preimage) };
    } catch (err) {
      return { ok: false as const, error: err instanceof Error ? err.message : String(err) };
    }
  }, [kind, identity]);

  return (
    <section aria-labelledby={`${id}-h`} className={card} data-testid="try-sha256">
      <h2 id={`${id}-h`} className="text-lg font-semibold text-slate-900 dark:text-white">
        SHA-256 and operation keys
      </h2>
      <p className="mt-1 text-sm leading-6 text-slate-600 dark:text-slate-300">
        An operation key is a SHA-256 digest: fixed length, the same everywhere, and no raw identifiers in logs. Here the digest is
        computed by two independent implementations — the browser’s own (Web Crypto), and{' '}
        <code className="font-mono text-xs">sha256Hex</code>, the function <code className="font-mono text-xs">opKey</code> uses — and
        you can check it a third way in a terminal.
      </p>
      <label htmlFor={`${id}-t`} className="mt-4 block text-sm font-medium text-slate-800 dark:text-slate-200">
        Text
      </label>
      <input id={`${id}-t`} className={input} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} autoComplete="off" />
      {browser.status === 'unavailable' ? (
        <p data-testid="sha-direct" className="mt-3 text-sm text-slate-600 dark:text-slate-400">
          The browser’s own SHA-256 (Web Crypto) is only offered on https:// or localhost pages; use the terminal line below instead.
        </p>
      ) : (
        <Output label="SHA-256 by the browser (Web Crypto)" value={browser.status === 'ok' && browser.text === text ? browser.hex : '…'} testId="sha-direct" />
      )}
      <Output label="sha256Hex (what opKey hashes with)" value={viaLib} testId="sha-lib" />
      <div role="status">
        {browser.status === 'ok' && browser.text === text && (
          <p data-testid="sha-match" className={`mt-2 text-sm font-medium ${browser.hex === viaLib ? 'text-emerald-800 dark:text-emerald-300' : 'text-red-800 dark:text-red-300'}`}>
            {browser.hex === viaLib ? '✓ The two digests are identical.' : '✗ The digests differ.'}
          </p>
        )}
      </div>
      <Output label="In a terminal (prints the same digest)" value={`printf '%s' ${shellQuote(text)} | sha256sum`} testId="sha-shell" />

      <h3 className="mt-6 text-sm font-semibold text-slate-900 dark:text-slate-100">Build an operation key</h3>
      <div className="mt-2 grid gap-3 sm:grid-cols-[10rem_1fr]">
        <div>
          <label htmlFor={`${id}-k`} className="block text-sm font-medium text-slate-800 dark:text-slate-200">
            Kind
          </label>
          <input id={`${id}-k`} className={input} value={kind} onChange={(e) => setKind(e.target.value)} spellCheck={false} autoComplete="off" />
        </div>
        <div>
          <label htmlFor={`${id}-i`} className="block text-sm font-medium text-slate-800 dark:text-slate-200">
            Identity (JSON)
          </label>
          <input
            id={`${id}-i`}
            className={input}
            value={identity}
            onChange={(e) => setIdentity(e.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={!key.ok}
            aria-describedby={`${id}-i-note`}
          />
        </div>
      </div>
      {key.ok ? (
        <div id={`${id}-i-note`}>
          <Output label="Hashed text: kind, a colon, the identity as stable JSON (keys sorted)" value={key.preimage} testId="opkey-preimage" />
          <Output label={`opKey(${JSON.stringify(kind)}, identity)`} value={key.key} testId="opkey-output" />
          <p className={`mt-2 text-sm font-medium ${key.key === key.direct ? 'text-emerald-800 dark:text-emerald-300' : 'text-red-800 dark:text-red-300'}`}>
            {key.key === key.direct ? '✓ Equal to sha256 of the hashed text. Reorder the identity’s fields: the key stays the same.' : '✗ Not equal.'}
          </p>
        </div>
      ) : (
        <p id={`${id}-i-note`} role="alert" className="mt-2 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-900 dark:bg-red-500/10 dark:text-red-100">
          The identity is not valid here: {key.error}
        </p>
      )}
    </section>
  );
}


type WebCryptoDigest = { status: 'pending' } | { status: 'unavailable' } | { status: 'ok'; text: string; hex: string };

/** SHA-256 of `text` by the browser's own implementation (crypto.subtle: secure contexts only). */
function useWebCryptoSha256(text: string): WebCryptoDigest {
  const [digest, setDigest] = useState<WebCryptoDigest>({ status: 'pending' });
  useEffect(() => {
    const subtle = globalThis.crypto?.subtle;
    if (!subtle) {
      setDigest({ status: 'unavailable' });
      return;
    }
    let current = true;
    subtle.digest('SHA-256', utf8ToBytes(text)).then(
      (buffer) => {
        if (current) setDigest({ status: 'ok', text, hex: bytesToHex(new Uint8Array(buffer)) });
      },
      () => {
        if (current) setDigest({ status: 'unavailable' });
      },
    );
    return () => {
      current = false;
    };
  }, [text]);
  return digest;
}

function Output({ label, value, testId }: { label: string; value: string; testId: string }) {
  const id = useId();
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  // A new value has not been copied yet.
  useEffect(() => setCopied(null), [value]);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('copied');
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      const el = document.getElementById(id);
      if (el) window.getSelection()?.selectAllChildren(el);
      setCopied('failed');
    }
  }
  return (
    <div className="mt-3">
      <div className="flex items-center justify-between gap-2">
        <span id={`${id}-label`} className="text-xs font-medium text-slate-600 dark:text-slate-400">
          {label}
        </span>
        <span className="flex items-center gap-2">
          <span role="status" aria-live="polite" className="text-xs text-slate-600 dark:text-slate-400">
            {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Selected: press Ctrl+C' : ''}
          </span>
          <button
            type="button"
            onClick={copy}
            aria-describedby={`${id}-label`}
            className="rounded-md px-2 py-0.5 text-xs font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800"
          >
            Copy
          </button>
        </span>
      </div>
      {/* <output> is a polite live region by default: 64 hex characters read out at every keystroke
          . It stays readable on demand; the "identical" line above is what is announced. */}
      <output
        id={id}
        aria-live="off"
        aria-labelledby={`${id}-label`}
        data-testid={testId}
        className="mt-1 block rounded-lg bg-slate-100 px-3 py-2 font-mono text-xs break-all text-slate-900 dark:bg-slate-800 dark:text-slate-100"
      >
        {value}
      </output>
    </div>
  );
}
