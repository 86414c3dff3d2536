# RoPE, derived and run -- build the book, run the tests.
#   make book   create .venv if missing, install, build the site into _build/html
#   make test   the same environment plus the test tools; ruff and the whole pytest suite
# torch is installed first and pinned (a CPU wheel): an unpinned torch pulls a multi-GB CUDA build.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
TORCH_PIN := torch==2.13.0
RUNTIME_STAMP := $(VENV)/.runtime-installed
DEV_STAMP := $(VENV)/.dev-installed

.PHONY: book test lint notebooks assets chromium clean help bench lab wheel-env llamacpp quick-site check-page screenshots \
  texlive pdf figures slides pptx libreoffice student zh kit portability

help:
	@echo "make book       build the site, both editions and the lecturer's kit (creates $(VENV) when missing)"
	@echo "make kit        the lecturer's kit: make pdf, figures, slides, pptx, then the Chinese and student editions"
	@echo "make pdf        the book as a PDF: instructor, student and Chinese editions (TeX Live from Debian)"
	@echo "make zh         the Chinese edition's site (English notebooks + book/zh/), into _build/kit/zh"
	@echo "make test       ruff, then build the site, then every test (package, notebooks, site in Chromium)"
	@echo "make portability the chapters' strict nbval in the second numerical environment"
	@echo "make notebooks  execute the chapter notebooks in place (refreshes their committed outputs)"
	@echo "make check-page PAGE=04_theta_spectrum"
	@echo "                build the site from the committed outputs (no execution, ~20 s) into"
	@echo "                _build/quick and run the layout and print tests on that page only"
	@echo "make screenshots every page at 1280/768/390 px, screen and print, in _build/screenshots"
	@echo "make bench      speed and memory against their targets (benchmarks/README.md)"
	@echo "make llamacpp   llama.cpp for chapter 8A (npm node-llama-cpp, prebuilt CPU build + its source)"
	@echo "make lab        the chapter-7 experiment on the CPU (about 1-3 h in stages, resumable; make lab-<stage>)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUNTIME_STAMP): requirements.txt pyproject.toml | $(BIN)/python
	$(PIP) install --quiet --disable-pip-version-check $(TORCH_PIN)
	$(PIP) install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(DEV_STAMP): requirements-dev.txt $(RUNTIME_STAMP)
	$(PIP) install --quiet --disable-pip-version-check -r requirements-dev.txt
	@$(BIN)/python -c "import torch, sys; v = torch.__version__.split('+')[0]; \
	  sys.exit(0 if v == '2.13.0' else 'torch was changed to ' + torch.__version__)"
	$(BIN)/python -m ropelab.explorables.bundle --write
	touch $@

# Front-end files the site serves itself (no CDN), from the npm registry via the committed lock.
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts

MATHJAX := node_modules/mathjax/es5
vendor/mathjax/tex-chtml-full.js: node_modules/.package-lock.json
	rm -rf vendor/mathjax && mkdir -p vendor/mathjax/output/chtml/fonts
	cp $(MATHJAX)/tex-chtml-full.js vendor/mathjax/
	cp -r $(MATHJAX)/a11y $(MATHJAX)/ui vendor/mathjax/
	cp -r $(MATHJAX)/output/chtml/fonts/woff-v2 vendor/mathjax/output/chtml/fonts/

assets: vendor/mathjax/tex-chtml-full.js

# The instructor site (solutions collapsed) with the lecturer's kit copied in by
# src/ropebook/ext/lecturer_kit.py: the PDF, the slides, the figures, the student edition (student/) and
# the Chinese edition (zh/).
book: $(RUNTIME_STAMP) assets kit
	$(BIN)/jupyter-book build --all -W --keep-going .

# The lecturer's kit (issue 18), built into $(KIT) from the notebooks' committed outputs (nothing
# re-executes but the figure export); `make book` copies it into the site.
#   pdf      the book through Jupyter Book's LaTeX builder and XeLaTeX, both editions and the
#            Chinese one
#   figures  every figure as SVG and PDF named by its number, zipped (runs each chapter again)
#   slides   a reveal.js deck per chapter from its cells tagged `slide` (reveal.js from npm), each
#            also printed to PDF by Debian's Chromium (Playwright, from requirements-dev.txt);
#            the same decks in Chinese (the store's text) into $(KIT)/slides/zh (issue 34)
#   pptx     every deck as an editable PPTX (python-pptx; read in Chromium: text boxes, equations
#            and figures as pictures, notes kept), into $(KIT)/slides/pptx and slides/zh/pptx
#            (tools/export_pptx.py)
#   student  the student edition (issue 31), built from student notebooks (no solution cells),
#            English into $(KIT)/student and Chinese into $(KIT)/student/zh, self-contained
#            (no link leaves student/, no repository or launch button); also the kit's
#            student-notebooks/ and, for instructors only, answer-key/ (tools/build_student.py)
#   zh       the Chinese edition (issue 27): the notebooks' code and outputs, the prose from the
#            translation store book/zh/ (tools/build_zh.py), into $(KIT)/zh
KIT := _build/kit
TEXLIVE_PACKAGES := texlive-xetex texlive-latex-recommended texlive-latex-extra \
  texlive-fonts-recommended texlive-lang-chinese latexmk tex-gyre fonts-noto-cjk \
  fonts-freefont-otf fonts-dejavu-core poppler-utils
texlive:
	@{ command -v xelatex && command -v latexmk && command -v pdftotext && kpsewhich xeCJK.sty \
	   && fc-list | grep -q "Noto Serif CJK SC" && fc-list | grep -q FreeSerif \
	   && fc-list | grep -q "DejaVu Sans Mono"; } >/dev/null 2>&1 || { \
	  echo "installing TeX Live from Debian's packages for the PDF"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $(TEXLIVE_PACKAGES); }

pdf: $(RUNTIME_STAMP) texlive
	$(BIN)/python tools/build_pdf.py --kit $(KIT)

figures: $(RUNTIME_STAMP)
	$(BIN)/python tools/export_figures.py --kit $(KIT)

# (the English decks and, in $(KIT)/slides/zh, the Chinese ones: tools/build_slides.py --lang)
slides: $(DEV_STAMP) assets chromium
	$(BIN)/python tools/build_slides.py --pdf --out $(KIT)/slides

# (after the decks: it reads them; it also links each PPTX from the decks' index.html)
pptx: $(DEV_STAMP) chromium slides
	$(BIN)/python tools/export_pptx.py --slides $(KIT)/slides
	$(BIN)/python tools/export_pptx.py --slides $(KIT)/slides/zh

student: $(RUNTIME_STAMP) assets
	$(BIN)/python tools/build_student.py --out $(KIT)/student

zh: $(RUNTIME_STAMP) assets
	$(BIN)/python tools/build_zh.py --out $(KIT)/zh

# The student site copies the PDFs, figures and slides it links to, builds its own Chinese
# student edition and copies the PDFs into the answer key; the Chinese site comes last, as its
# kit menu links the Chinese student edition (issue 34).
kit: pdf figures slides pptx
	$(BIN)/python tools/build_assignments.py --kit $(KIT)
	$(BIN)/python tools/build_student.py --out $(KIT)/student
	$(BIN)/python tools/build_zh.py --out $(KIT)/zh

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The browser tests drive Debian's Chromium (never a browser download); install it when missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && apt-get install -y -qq chromium; }

# tests/test_pptx.py converts every deck's PPTX to PDF with LibreOffice (headless) and counts
# its pages with poppler: Debian's packages, installed when missing (the no-GUI Impress, about
# 80 MB to fetch, 240 MB installed).
LIBREOFFICE_PACKAGES := libreoffice-impress-nogui poppler-utils
libreoffice:
	@{ command -v soffice && command -v pdfinfo && command -v pdftotext; } >/dev/null 2>&1 || { \
	  echo "installing Debian's LibreOffice Impress (no GUI) for the PPTX tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $(LIBREOFFICE_PACKAGES); }

# The package as a user installs it: the built wheel with its "book" extra in a clean virtual
# environment (torch 2.13.0 first, as on Colab where torch is already there);
# tests/test_packaging.py runs a chapter in it.
WHEEL_VENV := .venv-wheel
PACKAGE_FILES := pyproject.toml $(shell find src -type f -not -path '*/__pycache__/*' 2>/dev/null)
$(WHEEL_VENV)/.installed: $(PACKAGE_FILES) | $(BIN)/python
	rm -rf $(WHEEL_VENV) _build/wheel
	$(BIN)/python -m ropelab.explorables.bundle --write
	$(PIP) wheel --no-deps --quiet --disable-pip-version-check -w _build/wheel .
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(TORCH_PIN)
	$(WHEEL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
	  "$$(ls _build/wheel/ropelab-*.whl)[book]" nbclient
	touch $@

wheel-env: $(WHEEL_VENV)/.installed

# Issue 36: llama.cpp on the CPU for chapter 8A's measured runs (tools/llamacpp_measure.py,
# tests/test_llamacpp.py). npm's node-llama-cpp ships llama.cpp's prebuilt CPU libraries
# (nothing is compiled) and, as a git bundle, the source of the same release, whose
# convert_hf_to_gguf.py and gguf-py convert the tiny models. Optional dependencies (the
# CUDA and Vulkan builds, other platforms) are left out; the linux-x64 build is pinned.
LLAMACPP_NODE := tools/llamacpp/node_modules/.package-lock.json
LLAMACPP_SOURCE := _build/llamacpp/src/convert_hf_to_gguf.py
$(LLAMACPP_NODE): tools/llamacpp/package.json tools/llamacpp/package-lock.json
	cd tools/llamacpp && npm ci --no-audit --no-fund --ignore-scripts --omit=optional
$(LLAMACPP_SOURCE): $(LLAMACPP_NODE)
	rm -rf _build/llamacpp/src
	git -c advice.detachedHead=false clone --quiet \
	  tools/llamacpp/node_modules/node-llama-cpp/llama/gitRelease.bundle _build/llamacpp/src
	touch $@
llamacpp: $(LLAMACPP_SOURCE)

# The package, the notebooks (nbval) and the built site in a real browser; then the chapters'
# strict nbval once more in the second numerical environment (make portability).
test: lint book chromium libreoffice wheel-env llamacpp
	$(BIN)/python -m pytest
	$(MAKE) --no-print-directory portability

# Issue 21: the committed outputs must not record which CPU wrote them. The chapters' strict
# nbval again with numpy held to its baseline SIMD (every dispatched feature this CPU has is
# disabled, found at run time), torch's portable kernels and one thread
# (tools/portable_env.py; OPENBLAS_CORETYPE is left alone).
NOTEBOOK_TESTS := notebooks book/cheatsheet.ipynb
portability: $(DEV_STAMP)
	$(BIN)/python tools/portable_env.py --show
	$(BIN)/python tools/portable_env.py -- $(BIN)/python -m pytest -p no:cacheprovider \
	  $(NOTEBOOK_TESTS)

# The site built from the notebooks' committed outputs, without executing them (tools/build_site.py;
# run a chapter first with tools/run_notebooks.py), then the layout and print tests of one page on
# it (test_pages.py is left out: the quick site has no lecturer's-kit files to link to).
# QUICK=/tmp/<you>-quick keeps your build apart from another editor's.
QUICK ?= _build/quick
QUICK_SITE := $(QUICK)/_build/html
quick-site: $(DEV_STAMP) assets
	$(BIN)/python tools/build_site.py --out $(QUICK)

check-page: quick-site chromium
	@test -n "$(PAGE)" || { echo "usage: make check-page PAGE=04_theta_spectrum"; exit 2; }
	ROPELAB_SITE=$(QUICK_SITE) $(BIN)/python -m pytest -p no:cacheprovider -rxX \
	  tests/test_chapter_conventions.py tests/browser/test_layout.py tests/browser/test_print.py \
	  -k "$(PAGE)"

# Every page at every width, screen and print, into _build/screenshots (SITE=... for another
# build, e.g. SITE=$(QUICK_SITE)); the same browser tests run on the way.
SITE ?= _build/html
screenshots: $(DEV_STAMP) chromium
	ROPELAB_SITE=$(SITE) ROPELAB_SCREENSHOTS=all $(BIN)/python -m pytest -p no:cacheprovider \
	  tests/browser/test_pages.py tests/browser/test_layout.py tests/browser/test_print.py

# Execute every chapter in place so that the committed outputs (what nbval compares and what
# Colab shows before running) are the ones the current ropelab produces.
notebooks: $(DEV_STAMP)
	$(BIN)/python tools/run_notebooks.py notebooks/*.ipynb

# Speed and memory against their targets (benchmarks/README.md): kernels, widgets, explorables in
# Chromium, then `make book` from a clean _build and `make test`. BENCH_ARGS="--parts torch,numpy"
# runs some parts only; the table is printed and written to benchmarks/results.json.
bench: $(DEV_STAMP) assets chromium
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf _build .pytest_cache .ruff_cache vendor $(WHEEL_VENV)

# Pre-train and fine-tune tiny RoPE models and measure their supported length (chapter 7).
# Ctrl-C and rerun to resume; checkpoints go to lab/checkpoints/ (git-ignored).
lab: $(RUNTIME_STAMP)
	$(BIN)/python -m ropelab.lab  # every stage; writes src/ropelab/lab/results/ (committed)

# One stage of the lab at a time (.venv/bin/python -m ropelab.lab --list-stages): make
# lab-pretrain, lab-finetune, lab-testtime, lab-seed1, lab-seed2, lab-baseline, in any order;
# the results are written by the stage that completes the plan.
lab-%: $(RUNTIME_STAMP)
	$(BIN)/python -m ropelab.lab --stage $*

# The pre-registered runs of lab/PLAN.md (issue 35): one record per seed and model in
# lab/registered/ (committed). Resumable; run it twice at once to use both cores, and
# `bash lab/commit-registered.sh` to commit each record as it completes (lab/README.md).
lab-registered: $(RUNTIME_STAMP)
	OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE $(BIN)/python -m ropelab.lab.registered --threads 1
