"""pytest's settings for the whole repository.

The chapter notebooks are tested (nbval) in the book's "page" mode: their explorable outputs
leave ``ropelab-explore.js`` to the site that serves it, exactly as the committed outputs and
the built pages do (``ropebook.explorables.serve_scripts_from_page``, the one place the book
sets it; ``ropebook.ext.ropelab_explore``). nbval's kernels inherit the variable.
"""

from ropebook.explorables import serve_scripts_from_page

serve_scripts_from_page()
