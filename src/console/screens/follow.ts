// A selection that is an ID, not a row: inserts, removals and refreshes never move it to another item. When the
// selected item leaves the list, the row at its last position is selected (derived, no extra render).
import { useRef, useState } from "react";

export function useFollow<T extends { id: string }>(items: readonly T[]): { index: number; current: T | undefined; select: (index: number) => void; selectId: (id: string) => void } {
  const [id, setId] = useState<string | null>(null);
  const last = useRef(0);
  const found = id === null ? -1 : items.findIndex((x) => x.id === id);
  const index = found >= 0 ? found : Math.max(0, Math.min(last.current, items.length - 1));
  last.current = index;
  return {
    index,
    current: items[index],
    select: (i) => {
      const it = items[i];
      if (it) setId(it.id);
    },
    selectId: setId,
  };
}
