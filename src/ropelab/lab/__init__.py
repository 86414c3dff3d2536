"""ropelab.lab: tiny RoPE language models that show the scaling-law bound (chapter 7).

* :mod:`ropelab.lab.corpus` -- a generated character-level corpus, the same on every machine.
* :mod:`ropelab.lab.model` -- a small decoder-only LM on :class:`ropelab.torch_modules.CausalSelfAttention`
  whose RoPE base and kept planes can be changed after pre-training.
* :mod:`ropelab.lab.train` -- seeded training with exact resume from checkpoints.
* :mod:`ropelab.lab.evaluate` -- loss per position, the supported length, the q·k split.
* :mod:`ropelab.lab.experiment` -- the plan, run by ``python -m ropelab.lab [--quick]``.

Needs torch (and tqdm, which transformers brings); ``import ropelab`` does not import this package.
"""
