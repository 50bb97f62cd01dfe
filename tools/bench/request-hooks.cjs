/**
 * Hooks for the `--require` preloads of the bench tools (`count-requests.cjs`, `timeline.cjs`):
 * `on.kafka(apiName)` runs as each kafkajs request of the app leaves and `on.pg(text, client)` as each
 * node-postgres statement does (the client that sends it: one session); a function either returns is called when the request is answered.
 * The packages are the app's own (resolved from the working directory the app runs in).
 */
function hookRequests(on) {
  const fromApp = { paths: [process.cwd()] };

  const Connection = require(require.resolve('kafkajs/src/network/connection.js', fromApp));
  const send = Connection.prototype.send;
  Connection.prototype.send = function (args) {
    const answered = on.kafka(args.request.apiName);
    const sent = send.call(this, args);
    if (answered) sent.then(answered, () => undefined);
    return sent;
  };

  const { Client } = require(require.resolve('pg', fromApp));
  const query = Client.prototype.query;
  Client.prototype.query = function (q, ...rest) {
    const answered = on.pg(typeof q === 'string' ? q : (q?.text ?? '?'), this);
    if (!answered) return query.call(this, q, ...rest);
    // TypeORM passes a callback; a query object can carry one; otherwise pg returns a promise.
    const callback = rest.findIndex((x) => typeof x === 'function');
    if (callback >= 0) {
      const cb = rest[callback];
      rest[callback] = function (...args) {
        answered();
        return cb.apply(this, args);
      };
    } else if (q && typeof q.callback === 'function') {
      const cb = q.callback;
      q.callback = function (...args) {
        answered();
        return cb.apply(this, args);
      };
    }
    const result = query.call(this, q, ...rest);
    if (callback < 0 && result && typeof result.then === 'function') result.then(answered, () => undefined);
    return result;
  };
}

module.exports = { hookRequests };
