// The failure converter of the worker, the clients and the workflow sandbox (bundled into the workflow code).
// Temporal loads it by path (`failureConverterPath`) with require(), so it is plain CommonJS: the same file serves
// the sources (tests) and dist. `encodeCommonAttributes` moves each failure's message and stack trace into a
// payload, which the payload codec then encrypts; without encryption that payload is plain JSON, still shown by
// the Web UI and decoded by every client.
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
