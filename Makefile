# GPU Interconnects: two commands for a newcomer.
#   make book   build the HTML book into _build/html, the whole book as one PDF beside it, and
#               the chapters as live notebooks into _build/live
#   make test   every check: lint, lib tests and doctests, strict nbval, book build with -W,
#               the PDF, browser test, and the student edition
#   make student  the student edition (no solutions) into _build/student_src/_build/html, and
#               the handout _build/interconnect-student.zip
#   make instructor  the answer key into _build/instructor (instructors only)
#   make live   the chapters as notebooks with their numbers in the prose, for JupyterLab
#   make slides  one offline reveal.js deck per chapter into _build/instructor/slides
#   make assignments  the otter-grader assignments (student notebooks, autograder zips) into _build/assignments
#   make zh     the Chinese edition into _build/html-zh (beside _build/html), and its checks
#   make po     refresh the Chinese catalogs (locales/zh_CN) after the English text changed
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LOCK := requirements-lock.txt
JB := $(VENV)/bin/jupyter-book
# Explorers precompute their static HTML frames only where the book's outputs are written or
# checked (every target here); a reader's live notebook skips them (interconnect.widgets).
export INTERCONNECT_STATIC_FRAMES := 1

.PHONY: book test test-serial venv lint lib-tests nbval build-strict zh po pdf browser-test student instructor assignments slides bench execute live lock clean

venv: $(STAMP)

$(STAMP): requirements.txt lib/pyproject.toml $(wildcard $(LOCK))
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@if [ -f $(LOCK) ]; then \
	  $(PY) -m pip install --quiet -r requirements.txt -c $(LOCK); \
	else \
	  $(PY) -m pip install --quiet -r requirements.txt; \
	fi
	@# llm-analysis, for the side-by-side comparison with our step-time model, pins old
	@# dependencies it does not need here: install it without them (its CLI needs fire<0.6)
	$(PY) -m pip install --quiet --no-deps "llm-analysis==0.2.2" "fire<0.6" six termcolor
	@# "Python 3", the display name the committed notebooks carry: JupyterLab would otherwise mark every
	@# chapter as modified the moment it opens (it rewrites the name to the installed kernel's)
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
	@# build matplotlib's font cache now: its first-run message would otherwise land in a
	@# notebook cell's stderr and make strict nbval fail on a fresh machine
	MPLBACKEND=Agg $(PY) -c "import matplotlib.pyplot"
	@touch $(STAMP)

book: venv
	$(JB) build . --builder html
	$(PY) tools/i18n.py build
	$(PY) tools/build_pdf.py
	$(PY) tools/live_edition.py _build/live
	@echo ""
	@echo "The book is built. Open it at: file://$(CURDIR)/_build/html/index.html"
	@echo "The Chinese edition (中文版): file://$(CURDIR)/_build/html-zh/index.html"
	@echo "The chapters as live notebooks: .venv/bin/jupyter lab _build/live/book/"

# ruff over the library, tests, tools, benchmarks and the chapters' code cells, and the
# import-layers contract (both configured in lib/pyproject.toml)
lint: venv
	$(VENV)/bin/ruff check --config lib/pyproject.toml lib tests tools benchmarks book
	$(VENV)/bin/lint-imports --config lib/pyproject.toml

lib-tests: venv
	$(PY) -m pytest tests --ignore=tests/test_browser.py --ignore=tests/test_built_html.py --ignore=tests/test_student_build.py --ignore=tests/test_pdf.py --ignore=tests/test_assignments.py --ignore=tests/test_zh_build.py -q -p no:cacheprovider
	@# every Examples section in the library's docstrings is a doctest
	$(PY) -m pytest --doctest-modules lib/src/interconnect -q -p no:cacheprovider

# Strict nbval under a perturbation: INTERCONNECT_PERTURB moves every glued or formatted
# number by 1e-13 (relative, up and down in turn) before it is rounded for display, so a
# pass proves the committed outputs do not depend on the last bits of a float (another
# CPU, BLAS kernel or summation order). See lib/src/interconnect/_stable.py.
nbval: venv
	INTERCONNECT_PERTURB=1e-13 $(PY) -m pytest --nbval book -q -p no:cacheprovider --nbval-sanitize-with tests/nbval_sanitize.cfg

# The strict build uses the committed outputs (execute_notebooks: off): nbval, which `make test`
# runs in its other lane, re-executes every notebook and fails unless they are current, so a
# second execution would only repeat it. `make book` executes (_config.yml says force).
build-strict: venv
	rm -rf _build/html _build/.doctrees _build/jupyter_execute
	$(PY) tools/committed_outputs_config.py _build/config-committed-outputs.yml
	$(JB) build . --config _build/config-committed-outputs.yml --builder html -W -n --keep-going

# The Chinese edition (tools/i18n.py): the English messages extracted (_build/gettext), the
# zh_CN catalogs checked against them (no new, removed or obsolete message; the pages in
# i18n.COMPLETE 100 % translated, no fuzzy entry), the book built in Chinese into _build/html-zh
# with the notebooks executed again in Chinese (INTERCONNECT_LANG=zh: figures and explorers drawn
# in Chinese, the same numbers), and its tests (language switch both ways, lang="zh-CN", no English
# paragraph left on a translated page, no figure text left in English); then the same browser and
# built-HTML checks as the English edition (tests/test_browser.py, tests/test_built_html.py with
# BOOK_HTML=_build/html-zh: offline, no console error, no missing glyph, explorers work, phone
# layout, contrast, links, exercise titles). Runs after build-strict and pdf: the switch test reads
# both editions, and the Chinese preface links the English edition's PDF
# (../../html/gpu-interconnects.pdf). Chinese text (pages and figures) needs a CJK font: Debian's
# fonts-noto-cjk (.ci/run installs it).
zh: venv
	$(PY) tools/i18n.py pot
	$(PY) tools/i18n.py --check
	$(PY) tools/i18n.py build
	I18N_REQUIRED=1 $(PY) -m pytest tests/test_i18n.py tests/test_zh_build.py -q -p no:cacheprovider
	BOOK_HTML=_build/html-zh $(PY) -m pytest tests/test_browser.py tests/test_built_html.py -q -p no:cacheprovider

# After changing English text: new messages into the catalogs, changed ones marked fuzzy,
# removed ones obsolete (sphinx-intl update); then translate them (README, "The Chinese edition")
po: venv
	$(PY) tools/i18n.py update
	$(PY) tools/i18n.py --check || true

# The whole book as one PDF (tools/build_pdf.py: a single-page build from the committed
# outputs, printed by Debian's Chromium), beside the HTML book that links to it, then its test
pdf: venv
	$(PY) tools/build_pdf.py
	PDF_REQUIRED=1 $(PY) -m pytest tests/test_pdf.py -q -p no:cacheprovider

browser-test: venv
	$(PY) -m pytest tests/test_browser.py tests/test_built_html.py -q -p no:cacheprovider

# The student edition, a handout: the book with every solution removed from the pages and
# from the notebooks, the glued numbers written into the notebooks' text, an answer cell
# under each exercise and no instructors' page (tools/student_edition.py); then one zip of
# those notebooks, the built HTML and the library without the answers (its checker holds a
# sealed key only), and a test that no solution, key or expected value reached it. The
# notebooks keep their committed outputs (no re-execution).
STUDENT_SRC := _build/student_src
STUDENT_ZIP := _build/interconnect-student.zip
student: venv instructor
	$(PY) tools/student_edition.py $(STUDENT_SRC)
	$(JB) build $(STUDENT_SRC) --builder html -W -n --keep-going
	$(PY) tools/student_edition.py --archive $(STUDENT_SRC) $(STUDENT_ZIP)
	STUDENT_HTML=$(STUDENT_SRC)/_build/html STUDENT_ZIP=$(STUDENT_ZIP) INSTRUCTOR_DIR=$(INSTRUCTOR) \
	  $(PY) -m pytest tests/test_student_build.py -q -p no:cacheprovider
	@echo ""
	@echo "The student edition is built. Open it at: file://$(CURDIR)/$(STUDENT_SRC)/_build/html/index.html"
	@echo "Hand out $(STUDENT_ZIP)."

# The instructors' answer key (never for students): every part's answer, unit, tolerance and
# diagnosed mistakes, as JSON and HTML. STUDENTS=roster.txt (one id a line) adds each
# student's numbers and answers for the exercises with per-student variants.
INSTRUCTOR := _build/instructor
instructor: venv
	$(PY) tools/student_edition.py --instructor $(INSTRUCTOR) $(if $(STUDENTS),--students $(STUDENTS))

# Autograded assignments, one or more per part of the book (tools/assignments.py): for each,
# otter-grader's student notebook and autograder zip with hidden tests that call the
# library's checker; then a right, a wrong and a partial submission are graded locally
# (otter run, no Docker) and their scores checked (tests/test_assignments.py)
ASSIGNMENTS := _build/assignments
assignments: venv
	rm -rf $(ASSIGNMENTS)
	$(PY) tools/assignments.py $(ASSIGNMENTS)
	ASSIGNMENTS_DIR=$(ASSIGNMENTS) $(PY) -m pytest tests/test_assignments.py -q -p no:cacheprovider
	@echo "Assignments in $(ASSIGNMENTS)/*/dist: student/ to hand out, autograder/*.zip to grade with."

# Lecture slides, one offline reveal.js deck per chapter (tools/slides.py), into the
# instructors' build; CHAPTERS=book/part/chapter.ipynb ... builds only those
slides: venv
	$(PY) tools/slides.py $(INSTRUCTOR)/slides $(CHAPTERS)

# `make test` runs its checks in two lanes at once, each a sequence of the targets above (a 2-core
# machine spends most of the run in single-threaded Python, so the second core would otherwise idle):
#   lib   lib-tests, nbval, assignments (they read the sources only)
#   book  lint, build-strict, pdf, zh, browser-test, student (each needs the build before it;
#         the student edition's test compares it with _build/html)
# Every line is prefixed with its lane. Both lanes run to the end; the run fails if either failed,
# and says which. `make test-serial` runs the same targets one after another.
TEST_LIB := lib-tests nbval assignments
TEST_BOOK := lint build-strict pdf zh browser-test student
test: venv
	@set -o pipefail; start=$$SECONDS; \
	( $(MAKE) --no-print-directory $(TEST_LIB) 2>&1 | sed -u 's/^/[lib]  /' ) & lib=$$!; \
	( $(MAKE) --no-print-directory $(TEST_BOOK) 2>&1 | sed -u 's/^/[book] /' ); book=$$?; \
	echo "[book] lane finished after $$((SECONDS - start)) s (status $$book)"; \
	wait $$lib; lib=$$?; \
	echo "[lib]  lane finished after $$((SECONDS - start)) s (status $$lib)"; \
	if [ $$lib -ne 0 ] || [ $$book -ne 0 ]; then \
	  echo "make test FAILED:$$([ $$lib -ne 0 ] && echo ' lib lane ($(TEST_LIB))')$$([ $$book -ne 0 ] && echo ' book lane ($(TEST_BOOK))'); see the lines prefixed [lib] or [book] above"; \
	  exit 1; \
	fi
	@echo "All checks passed."

test-serial: $(TEST_BOOK) $(TEST_LIB)
	@echo "All checks passed."

bench: venv
	$(PY) benchmarks/run.py
	$(PY) benchmarks/simgrid_compare.py

# The chapters as notebooks to read and run in JupyterLab: glued numbers written into the
# prose, MyST roles and exercise fences as plain Markdown (tools/live_edition.py)
live: venv
	$(PY) tools/live_edition.py _build/live
	@echo "Open them with: .venv/bin/jupyter lab _build/live/book/"

# Re-execute every notebook in place (after changing lib or a chapter), so the
# committed outputs are what strict nbval compares against.
execute: venv
	$(PY) tools/execute_notebooks.py book

# Refresh the lock file CI installs under (see README).
lock: venv
	$(PY) -m pip freeze --exclude-editable | grep -v '^interconnect' > $(LOCK)

clean:
	rm -rf _build
