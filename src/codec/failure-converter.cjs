// The failure converter of the worker, the clients and the workflow sandbox (bundled into the workflow code).
// Temporal loads it by path (`failureConverterPath`) with require(), so it is plain CommonJS: the same file serves
// the sources (tests) and dist. `encodeCommonAttributes` moves each failure's message and stack trace into a
// payload, which the payload codec then encrypts. Used only where payloads are encrypted (agentDataConverter with
// keys, and the workflow bundle built with it): without encryption, failures keep Temporal's default form, whose
// messages an operator reads in `temporal workflow describe` and the Web UI.
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
