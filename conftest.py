"""pytest's settings for the whole repository.

The chapter notebooks are tested (nbval) in the book's "page" mode: their explorable outputs
leave ``ropelab-explore.js`` to the site that serves it, exactly as the committed outputs and
the built pages do (``ropelab.explorables``, ``book/_ext/ropelab_explore.py``). nbval's kernels
inherit this variable.
"""

import os

os.environ["ROPELAB_EXPLORE_SCRIPT"] = "page"
