// Where the Temporal server is: read the way Temporal's own CLI reads it (@temporalio/envconfig:
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS settings, TEMPORAL_PROFILE, the config file).
import { InterceptingCall, Metadata, status as GrpcStatus, type Interceptor, type NextCall } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { agentDataConverter } from '../codec/data-converter.js';
import { tracingConfigFromEnv } from '../core/otel-config.js';

export const DEFAULT_ADDRESS = 'localhost:7233';

export interface TemporalTarget {
  address: string;
  namespace: string;
  /** True when the address came from the environment or a profile, not from our default. */
  explicit: boolean;
  connectionOptions: NativeConnectionOptions;
}

export function resolveTemporalTarget(env: NodeJS.ProcessEnv = process.env): TemporalTarget {
  const config = loadClientConnectConfig({ overrideEnvVars: env as Record<string, string> });
  const explicit = Boolean(config.connectionOptions.address);
  const address = config.connectionOptions.address ?? DEFAULT_ADDRESS;
  return {
    address,
    namespace: config.namespace ?? 'default',
    explicit,
    connectionOptions: { ...config.connectionOptions, address },
  };
}

/** The same target, at another address (the embedded server). */
export function withAddress(target: TemporalTarget, address: string): TemporalTarget {
  return { ...target, address, connectionOptions: { ...target.connectionOptions, address } };
}

// An answer may be as large as this. @temporalio/client 1.24 means to allow 128 MB, but its default sets the option
// under a name gRPC does not read (`max_receive_message_length`, without `grpc.`), so gRPC's own 4 MB limit applied: a
// history page of a run with a megabyte-sized task or reply failed with RESOURCE_EXHAUSTED ("Received message larger
// than max"), which the client retried for the page's 3 s deadline before asking again with smaller pages (history.ts).
// test/client/connection.test.ts fails when this stops working, and tells when the SDK's own default is fixed.
const MAX_RECEIVE_MESSAGE = 'grpc.max_receive_message_length';
const MAX_RECEIVE_MESSAGE_BYTES = 128 * 1024 * 1024;

export interface ConnectClientOptions {
  /** Asked as each call starts. When it answers true, a call that finds the server unavailable (gRPC UNAVAILABLE)
   * fails after about 1 s of retries (4 attempts) instead of the Temporal client's usual 10 attempts, about 20 s: for a
   * caller that retries such calls itself and tells its user the server is down (the CLI's `run`, `result` and `watch`
   * while they wait, src/cli/outage.ts). Other errors are retried as usual. */
  callerRidesOutages?: () => boolean;
}

/** A client with the project's data converter (encryption per AGENT_ENCRYPTION_KEYS), connected to `target`:
 * by default the server the environment names, read as Temporal's CLI reads it (resolveTemporalTarget). */
export async function connectClient(target: TemporalTarget = resolveTemporalTarget(), options: ConnectClientOptions = {}): Promise<Client> {
  const dataConverter = agentDataConverter(); // first: a malformed key fails before any connection is made
  const { address, tls, apiKey, metadata } = target.connectionOptions;
  const connection = await Connection.connect({
    address,
    tls,
    apiKey,
    metadata,
    connectTimeout: '5s',
    channelArgs: { [MAX_RECEIVE_MESSAGE]: MAX_RECEIVE_MESSAGE_BYTES },
    interceptors: connectionInterceptors(options),
  });
  // With tracing configured, a run started here continues the caller's trace (Temporal's client interceptor puts it
  // in the start's headers).
  // Loaded only then: OpenTelemetry's modules cost every untraced CLI command a fifth of a second of start-up.
  const interceptors = tracingConfigFromEnv(process.env) ? { workflow: [await otelClientInterceptor()] } : undefined;
  return new Client({ connection, namespace: target.namespace, dataConverter, interceptors });
}

async function otelClientInterceptor() {
  const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry');
  return new OpenTelemetryWorkflowClientInterceptor();
}

/** The interceptors of connectClient's connection: the Temporal client's retries (cut short while the caller rides
 * outages), then the guard against a retry after the connection was closed. */
export function connectionInterceptors(options: ConnectClientOptions = {}): Interceptor[] {
  const retries = options.callerRidesOutages ? retryInterceptor(options.callerRidesOutages) : makeGrpcRetryInterceptor(defaultGrpcRetryOptions());
  return [retries, closedChannelGuard];
}

// @temporalio/client 1.24's retry interceptor waits for its next attempt with a timer that Connection.close() does not
// clear; when the timer fires after the close, gRPC throws "Channel has been shut down" inside it, where no caller can
// catch it: the process crashed with an uncaught exception (a CLI command or `serve` closing its connection while a
// call waited to retry, say during an outage). Placed after the retries, this guard turns that throw into the call's
// own failure (CANCELLED), which its caller sees as a rejected promise. test/client/connection.test.ts fails when this
// stops working, and tells when the SDK no longer needs it.
const closedChannelGuard: Interceptor = (options, nextCall) => {
  try {
    return new InterceptingCall(nextCall(options));
  } catch (err) {
    if (!(err instanceof Error) || err.message !== 'Channel has been shut down') throw err;
    return endedCall(`${err.message}: the connection was closed before this call, or its next attempt, could be made`);
  }
};

/** A call that ends as it starts, with CANCELLED and `details`. */
function endedCall(details: string): InterceptingCall {
  const call: ReturnType<NextCall> = {
    start: (_metadata, listener) => listener?.onReceiveStatus?.({ code: GrpcStatus.CANCELLED, details, metadata: new Metadata() }),
    sendMessageWithContext: () => {},
    sendMessage: () => {},
    startRead: () => {},
    halfClose: () => {},
    cancelWithStatus: () => {},
    getPeer: () => '',
    getAuthContext: () => null,
  };
  return new InterceptingCall(call);
}

const GRPC_UNAVAILABLE = 14;
const ATTEMPTS_WHEN_CALLER_RIDES_OUTAGES = 4;

/** The Temporal client's own retry interceptor (its default options), giving up on UNAVAILABLE after
 * ATTEMPTS_WHEN_CALLER_RIDES_OUTAGES attempts for a call made while `callerRidesOutages()` is true. */
function retryInterceptor(callerRidesOutages: () => boolean): ReturnType<typeof makeGrpcRetryInterceptor> {
  const usualOptions = defaultGrpcRetryOptions();
  const usual = makeGrpcRetryInterceptor(usualOptions);
  const short = makeGrpcRetryInterceptor({
    delayFunction: usualOptions.delayFunction,
    retryableDecider: (attempt, status) =>
      status.code === GRPC_UNAVAILABLE ? attempt < ATTEMPTS_WHEN_CALLER_RIDES_OUTAGES : usualOptions.retryableDecider(attempt, status),
  });
  // An interceptor is made as the call starts, in the caller's async context: that is when the question is asked.
  return (options, nextCall) => (callerRidesOutages() ? short : usual)(options, nextCall);
}
