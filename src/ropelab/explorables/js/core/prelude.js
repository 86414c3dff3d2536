// The explore script's first lines: strict mode, and nothing twice on a page.

'use strict';
const inBrowser = typeof window !== 'undefined' && typeof document !== 'undefined';
if (inBrowser && window.ropelabExplore) {
  return;
}
