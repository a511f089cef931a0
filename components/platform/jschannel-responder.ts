/**
 * The answering half of jschannel's postMessage protocol, which Open edX's JSInput uses to reach a
 * problem page on another origin (`sop="false"`): it calls `getGrade`, `getState` and `setState` in
 * scope `JSInput`. Messages are JSON strings: a request `{id, method: "JSInput::getGrade", params}`
 * is answered `{id, result}` (or `{id, error, message}`) to the window and origin that asked. The
 * readiness handshake is answered in both dialects in use — the original `"ping"`/`"pong"` and the
 * later `{type: "publish-request"}`/`"publish-reply"` — and announced once on start with an object,
 * which both dialects accept as "the other side is ready".
 * Only messages from `win.parent` are heard.
 */

export type ChannelMethods = Record<string, (params: unknown) => unknown>;

/** Answer `methods` in `scope` to the parent window; returns the function that stops answering. */
export function serveJsChannel(scope: string, methods: ChannelMethods, win: Window = window): () => void {
  const prefix = `${scope}::`;
  const onMessage = (event: MessageEvent) => {
    if (event.source !== win.parent || typeof event.data !== 'string') return;
    let message: { id?: unknown; method?: unknown; params?: unknown };
    try {
      message = JSON.parse(event.data) as typeof message;
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null || typeof message.method !== 'string' || !message.method.startsWith(prefix)) return;
    const method = message.method.slice(prefix.length);
    const reply = (value: object) => (event.source as Window).postMessage(JSON.stringify(value), event.origin === 'null' ? '*' : event.origin);
    if (method === '__ready') {
      if (message.params === 'ping') reply({ method: `${prefix}__ready`, params: 'pong' });
      else if ((message.params as { type?: unknown } | null)?.type === 'publish-request') {
        reply({ method: `${prefix}__ready`, params: { type: 'publish-reply', publish: Object.keys(methods).map((m) => ({ action: 'bind', method: m })) } });
      }
      return;
    }
    if (message.id === undefined || !Object.hasOwn(methods, method)) return;
    try {
      reply({ id: message.id, result: methods[method]!(message.params) });
    } catch (error) {
      reply({ id: message.id, error: 'runtime_error', message: error instanceof Error ? error.message : String(error) });
    }
  };
  win.addEventListener('message', onMessage);
  if (win.parent !== win) {
    // Nothing secret in it: it says only that this side listens.
    win.parent.postMessage(JSON.stringify({ method: `${prefix}__ready`, params: { type: 'publish-request', publish: [] } }), '*');
  }
  return () => win.removeEventListener('message', onMessage);
}
