/**
 * The store-data module: follows the events that change what stores hold and
 * invalidates the query cache the views read through (see `queries.ts`).
 */
import { useEffect } from 'react';
import type { ViewModule } from '../shell/views';
import { followStoreEvents } from './queries';

function StoreEvents() {
  useEffect(() => followStoreEvents(), []);
  return null;
}

export const storeDataModule: ViewModule = {
  id: 'storeData',
  extensions: [StoreEvents],
};
