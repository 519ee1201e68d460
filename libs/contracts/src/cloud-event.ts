/** CloudEvents 1.0 structured-mode envelope, as carried on every Arbiter subject. */
export interface CloudEvent<T = unknown> {
  specversion: '1.0';
  /** Unique per event; consumers use it to de-duplicate redeliveries. */
  id: string;
  /** URI-reference of the emitting service, e.g. `/arbiter/control-plane`. */
  source: string;
  /** The subject the event was published on, e.g. `arbiter.ruleset.changed`. */
  type: string;
  time: string;
  datacontenttype: 'application/json';
  /** Extension attribute: owning tenant, when the event is tenant-scoped. */
  tenantid?: string;
  /** Extension attribute: correlation id of the request that caused the event. */
  correlationid?: string;
  /** Extension attribute: W3C traceparent of the publishing span. */
  traceparent?: string;
  data: T;
}
