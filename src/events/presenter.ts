import { presentProduct } from '../products/presenter.ts';
import { productFromRow } from '../products/rows.ts';
import { presentWorkspace } from '../workspaces/presenter.ts';
import { workspaceFromRow } from '../workspaces/rows.ts';
import { EVENT_TYPE_NAMES, isProductEvent, type StoredEvent } from './model.ts';

/** The Event representation of docs/events.md: exactly these members, in this order. */
export function presentEvent(event: StoredEvent): object {
  return {
    id: event.id,
    type: EVENT_TYPE_NAMES[event.type],
    createdAt: event.createdAt,
    data: isProductEvent(event.type) ? presentProduct(productFromRow(event.row)) : presentWorkspace(workspaceFromRow(event.row)),
  };
}

/** The one JSON text of an Event, the same bytes in the feed, the stream and webhook deliveries. */
export function eventJson(event: StoredEvent): string {
  return JSON.stringify(presentEvent(event));
}
