'use strict';
// mesa-egress: takes Node's fetch and its https module through HTTPS_PROXY / HTTP_PROXY.
//
// Node before 24.5 ignores the proxy variables: its global fetch (undici) and https.request
// connect directly, which in a locked-down pod is a refused connection with no hint. Loaded with
// NODE_OPTIONS=--require=/run/mesa-egress/node-proxy.cjs (bin/mesa-egress run --share-dir writes
// it there), this file gives fetch a dispatcher and https a global agent that go through the
// proxy: CONNECT for https (the proxy intercepts or tunnels, as its policy says), the absolute
// form for plain http (RFC 9112 section 3.2.2). NO_PROXY is honoured (names, .suffixes, *).
// Node 24.5 and newer with NODE_USE_ENV_PROXY=1 do this themselves, and the file steps aside.
// Plain http through Node's http module (not fetch) is left alone: it has no global hook that
// can rewrite the request target.
(function mesaEgressProxy() {
  const env = process.env;
  const proxyText = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy;
  if (!proxyText) {
    return;
  }
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (env.NODE_USE_ENV_PROXY === '1' && (major > 24 || (major === 24 && minor >= 5))) {
    return;
  }
  const http = require('http');
  const https = require('https');
  const net = require('net');
  const tls = require('tls');
  let proxy;
  try {
    proxy = new URL(proxyText.includes('://') ? proxyText : 'http://' + proxyText);
  } catch (e) {
    process.emitWarning('mesa-egress node-proxy: HTTPS_PROXY is not a URL: ' + proxyText);
    return;
  }
  const noProxy = (env.NO_PROXY || env.no_proxy || '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);

  function bare(host) {
    return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  }

  function bypass(host) {
    const name = bare(String(host).toLowerCase());
    return noProxy.some((entry) => entry === '*' || name === bare(entry.replace(/^\./, ''))
        || (entry.startsWith('.') ? name.endsWith(entry) : name.endsWith('.' + entry)));
  }

  // A TLS socket to host:port through the proxy's CONNECT; callback(err, socket) once TLS is up.
  // tlsOptions: what the caller asked of TLS (ca, cert, key, rejectUnauthorized, ...), kept.
  function tunnel(host, port, servername, callback, tlsOptions) {
    const target = (net.isIPv6(bare(host)) ? '[' + bare(host) + ']' : host) + ':' + port;
    const request = http.request({
      host: bare(proxy.hostname), port: proxy.port || 80, method: 'CONNECT', path: target,
      headers: { host: target }, setHost: false, agent: false,
    });
    let done = false;
    const finish = (err, socket) => {
      if (!done) {
        done = true;
        callback(err, socket);
      }
    };
    request.setTimeout(30000, () => request.destroy(new Error('no answer to CONNECT within 30 s')));
    request.once('connect', (response, socket, head) => {
      request.setTimeout(0);
      if (response.statusCode !== 200) {
        socket.destroy();
        // The proxy's reason phrase is its reason code and error (e.g. "403 host_not_allowed: ...").
        finish(new Error('mesa-egress refused CONNECT ' + target + ': ' + response.statusCode + ' ' + response.statusMessage));
        return;
      }
      if (head && head.length) {
        socket.unshift(head);
      }
      const name = servername || (net.isIP(bare(host)) ? undefined : bare(host));
      const secure = tls.connect(Object.assign({}, tlsOptions || {}, { socket, servername: name, ALPNProtocols: ['http/1.1'] }));
      secure.once('secureConnect', () => finish(null, secure));
      secure.once('error', (err) => finish(err));
    });
    request.once('error', (err) => finish(new Error('mesa-egress proxy ' + proxy.host + ' unreachable: ' + err.message)));
    request.end();
  }

  // fetch: Node bundles undici without exporting it; an aborted fetch makes undici create its
  // global Agent (no connection is opened), whose class then builds the proxying dispatchers.
  const key = Symbol.for('undici.globalDispatcher.1');
  if (typeof fetch === 'function') {
    if (globalThis[key] === undefined) {
      const aborted = new AbortController();
      aborted.abort();
      fetch('http://127.0.0.1/', { signal: aborted.signal }).catch(() => {});
    }
    const current = globalThis[key];
    const Agent = current && current.constructor;
    // A Node that proxies by itself (NODE_USE_ENV_PROXY on 22.21+ or 24) has put its EnvHttpProxyAgent there already.
    if (typeof Agent === 'function' && Agent.name !== 'EnvHttpProxyAgent') {
      const direct = new Agent();
      const tunnelled = new Agent({
        connect(opts, callback) {
          tunnel(opts.hostname, opts.port || 443, opts.servername, callback);
        },
      });
      const forwarded = new Agent();
      const hostHeader = (headers, host) => {
        if (Array.isArray(headers)) {
          for (let i = 0; i < headers.length; i += 2) {
            if (String(headers[i]).toLowerCase() === 'host') {
              return headers;
            }
          }
          return headers.concat(['host', host]);
        }
        const copy = Object.assign({}, headers || {});
        if (!Object.keys(copy).some((k) => k.toLowerCase() === 'host')) {
          copy.host = host;
        }
        return copy;
      };
      globalThis[key] = {
        dispatch(opts, handler) {
          const origin = new URL(opts.origin);
          if (bypass(origin.hostname)) {
            return direct.dispatch(opts, handler);
          }
          if (origin.protocol === 'https:') {
            return tunnelled.dispatch(opts, handler);
          }
          return forwarded.dispatch(Object.assign({}, opts, {
            origin: proxy.origin, path: origin.origin + opts.path, headers: hostHeader(opts.headers, origin.host),
          }), handler);
        },
        close() {
          return Promise.all([direct.close(), tunnelled.close(), forwarded.close()]);
        },
        destroy(err) {
          return Promise.all([direct.destroy(err), tunnelled.destroy(err), forwarded.destroy(err)]);
        },
        on() { return this; }, once() { return this; }, off() { return this; }, emit() { return false; },
      };
    }
  }

  // https.request / https.get without an agent of their own.
  class TunnelAgent extends https.Agent {
    createConnection(options, oncreate) {
      const host = options.host || options.hostname || 'localhost';
      if (bypass(host)) {
        return super.createConnection(options, oncreate);
      }
      const keep = {};
      for (const k of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'checkServerIdentity', 'ciphers',
        'minVersion', 'maxVersion', 'session']) {
        if (options[k] !== undefined) {
          keep[k] = options[k];
        }
      }
      tunnel(host, options.port || 443, options.servername, oncreate, keep);
      return undefined;
    }
  }
  https.globalAgent = new TunnelAgent({ keepAlive: true });
})();
