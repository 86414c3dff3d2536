// The decoder script's first lines: strict mode, nothing twice on a page, and the explore
// script's core (the rope mathematics, the formats, the language), read as the formats were.

'use strict';
const inBrowser = typeof window !== 'undefined' && typeof document !== 'undefined';
if (inBrowser && window.ropelabDecoder) {
  return;
}
const explore = inBrowser ? window.ropelabExplore : require('./ropelab-explore.js');
const core = explore.core;
