import type { EventCatalogue } from './catalogue.ts';
import type { StoredEvent } from './model.ts';
import type { VersionView } from '../versions/api-versions.ts';

/** The media type of a live stream (WHATWG HTML, server-sent events). */
export const EVENT_STREAM_TYPE = 'text/event-stream; charset=utf-8';

/** A comment line: ignored by every reader, it keeps proxies from closing a quiet connection. */
export const KEEP_ALIVE = ':\n\n';

/**
 * One message of the stream for an event: `id`, `event` (its type) and `data` (the Event as one line of
 * JSON: JSON.stringify never writes a line break, so no field can end early).
 */
export function eventMessage(catalogue: EventCatalogue, event: StoredEvent, version: VersionView): string {
  return `id: ${event.id}\nevent: ${catalogue.nameOf(event.type)}\ndata: ${catalogue.json(event, version)}\n\n`;
}
