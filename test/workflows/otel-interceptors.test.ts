// The gates of the OpenTelemetry workflow interceptors answer for each method Temporal's classes implement, before
// those classes are loaded (a run loads them only once it is known to be traced): a method the gates did not list
// would go untraced, silently.
import * as otel from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { describe, expect, it } from 'vitest';
import { OTEL_INTERCEPTOR_METHODS } from '../../src/workflows/otel-interceptors.js';

const methodsOf = (cls: { prototype: object }) => Object.getOwnPropertyNames(cls.prototype).filter((name) => name !== 'constructor').sort();

describe('the OpenTelemetry workflow interceptors behind their gates', () => {
  it('list exactly the methods of Temporal’s inbound, outbound and internals interceptors', () => {
    expect([...OTEL_INTERCEPTOR_METHODS.inbound].sort()).toEqual(methodsOf(otel.OpenTelemetryInboundInterceptor));
    expect([...OTEL_INTERCEPTOR_METHODS.outbound].sort()).toEqual(methodsOf(otel.OpenTelemetryOutboundInterceptor));
    expect([...OTEL_INTERCEPTOR_METHODS.internals].sort()).toEqual(methodsOf(otel.OpenTelemetryInternalsInterceptor));
  });
});
