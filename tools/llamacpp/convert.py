"""Convert saved transformers models to GGUF with llama.cpp's own ``convert_hf_to_gguf.py``.

    python tools/llamacpp/convert.py LLAMA_CPP_SOURCE MODEL_DIR OUT.gguf [MODEL_DIR OUT.gguf ...]

LLAMA_CPP_SOURCE is the llama.cpp tree of the release node-llama-cpp runs (``make llamacpp``
clones it from the package's ``llama/gitRelease.bundle``). The converter runs unchanged in
every step that touches weights, hyper-parameters and rope metadata. One step is replaced:
the tiny models have no tokenizer, so their vocabulary is the first ``vocab_size`` entries of
the llama-spm vocabulary the same tree ships (``models/ggml-vocab-llama-spm.gguf``), written
by the converter's own ``_set_vocab_builtin``. The runs feed token ids, never text.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    source = Path(argv[0]).resolve()
    pairs = list(zip(argv[1::2], argv[2::2], strict=True))
    script = str(source / "convert_hf_to_gguf.py")
    # The one sys.path edit of the repository (tests/test_book_package.py): llama.cpp's
    # converter reads its vocabulary from sys.path[0]/models (_set_vocab_builtin).
    sys.path.insert(0, str(source))
    import conversion  # the converter's own package, from the llama.cpp tree

    find_class = conversion.get_model_class

    def class_with_builtin_vocabulary(*args, **kwargs):
        model_class = find_class(*args, **kwargs)
        model_class.set_vocab = lambda self: self._set_vocab_builtin(
            "llama-spm", self.hparams["vocab_size"]
        )
        return model_class

    conversion.get_model_class = class_with_builtin_vocabulary
    for model_dir, out in pairs:
        sys.argv = [script, model_dir, "--outfile", out, "--outtype", "f32"]
        runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
