"""Style rules of the Chinese edition (issue 34), checked on every translated unit by
:func:`zh_store.check_page` beside the fidelity and term checks.

Each rule has a name, and every problem it reports starts ``[rule-name]``:

``heading-gloss``
    No English gloss in parentheses in a heading, a figure caption or a table cell:
    "## 绝对位置编码（absolute position encoding）" is a problem. The English of a term is
    given once, at its first mention in the page's running prose (``zh_store.first_mention_problems``).
``nested-parentheses``
    No parenthesis inside a parenthesis: "（查询（query）、键（key））". An equation number
    inside one ("（RoFormer 式 (16)）") is not a parenthetical and is allowed, and so is a
    formula written in plain ASCII in a caption, "(1 - (ln r + gamma)/ln beta)".
``bei-reduction``
    A reduction is never written with 倍: "少 80 倍", "小三倍", "只小 7.1 倍", "相差 1.7 倍",
    "按 64 倍缩小". Write "为…的 1/80" ("只有 Meta 做法的 1/80"), or name both sides. An
    increase, "大 / 多 / 长 N 倍", "N 倍于", is fine.
``link-text``
    The text of a link in a Chinese unit ({doc}`text <target>`, {ref}`text <target>`,
    [text](target)) contains Chinese when it contains an English word: "{doc}`第 8 章 <…>`",
    not "{doc}`Chapter 8 <…>`". A number or a "#40320" alone is fine. The references page,
    whose links are the cited titles, is exempt.
``number-format``
    The edition's one number convention (DEVELOPERS.md, "Chinese edition"): digits grouped by
    three with a comma from five digits on, as in the English and in every printed output
    (10,000, 131,072; never "10 000" or "10000"; an identifier, after "#", "issue" or
    "commit" or in "第 25681 号", is not a number); a count the English gives with a scale word (2.6 million, 4 M) in 万 or 亿
    (260 万, 400 万), never "百万" or "M" after a digit; no space before a percent sign
    (95%, never "95 %"). The fidelity check compares numbers by value
    (:func:`number_values`), so 2.6 million ≡ 260 万 and 10,000 ≡ 1 万.

``term-spelling``
    The glossary's canonical Chinese (规范译名), never the sources' spelling where it differs
    (哈达玛积, not the sources' 哈达码积; 临界底数, not 临界base; 辐角; 支持长度; NTK-aware 缩放;
    分块因果注意力) nor a rendering
    this book retired (cos/sin 表, not cos/sin 缓存; one term per 解耦): both lists are in
    ``book/glossary_terms.json``. The glossary page, which shows the sources' spellings, is
    exempt.

``long-sentence``
    No sentence of running prose longer than :data:`LONG_SENTENCE` (90) Chinese characters.
    A sentence ends at 。！？ or at a paragraph, list item, heading or table cell; only CJK
    characters count (formulas, code, roles, URLs and Latin words do not). Split it: one claim
    a sentence, as chapters 1 to 3 write (16–18 字 on average).

Pages whose units still break a rule, because another author holds them, are listed in
:data:`RATCHET` with the exact number of problems each rule has there: ``check_page`` lets
that many pass on that page and reports every one as soon as there are more;
``tests/test_zh_rules.py`` asserts each count exactly, so the count must be lowered (and the
entry deleted at 0) when the page is fixed. The fixes waiting are listed unit by unit in the
issue-34 pending list.
"""

from __future__ import annotations

import re

CJK = re.compile(r"[\u3400-\u9fff]")
CJK_CHAR = "\u3400-\u9fff"

#: A Chinese character, optional emphasis, then English in parentheses: 外推（extrapolation）.
GLOSS = re.compile(rf"[{CJK_CHAR}][*_]*\s*[（(]\s*([A-Za-z][A-Za-z' /,-]*?)\s*[)）]")


def is_gloss(english: str) -> bool:
    """Whether a parenthesis's English is a gloss (words: "extrapolation", "cos/sin table",
    "Rotary Position Embedding"), not a value or a name ("True", "d = 64", "YaRN ×8")."""
    words = re.findall(r"[A-Za-z'-]+", english)
    return bool(words) and (
        len(words) >= 2 or re.fullmatch(r"[a-z][a-z'-]{2,}", words[0]) is not None
    )


#: A reduction written with 倍 (see ``bei-reduction``).
REDUCTION = re.compile(
    r"(?:相差|(?<![至最])少|(?<![大多])小|(?<![最])低|短|减少|降低|缩小|缩短|下降|慢)"
    r"[了得]?\s*(?:约|近|大约|仅|只|多少|了)?\s*[\d.,]*\s*[零一二两三四五六七八九十百千万几]*\s*倍(?!数)"
    r"|(?<!翻)[\d零一二两三四五六七八九十百千万]\s*倍地?(?:缩小|减少|降低|缩短|下降)"
)

ROLE_TITLED = re.compile(r"\{[\w:-]+\}`([^`<]*\S)\s*<[^<>`]+>`")
MD_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\([^)\s]+\)")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")

SPACE_GROUPED = re.compile(r"(?<![\d])(?<!\d[.,])\d{1,3}(?: \d{3})+(?!\d)(?![.,]\d)")
UNGROUPED = re.compile(r"(?<![A-Za-z\d#])(?<!\d[.,])\d{5,}(?![\dA-Za-z])(?![.,]\d)")
IDENTIFIER_BEFORE = re.compile(r"(?:#|issue|request|commit|PR|pull|v)\s*$", re.IGNORECASE)
SCALE_WORD = re.compile(r"\d\s*(?:百万|million|billion)|\d\s+M(?![A-Za-z])|\dM\s*个")
PERCENT_SPACE = re.compile(r"\d\s+%")

#: Numbers by value: English scale words and Chinese units.
EN_NUMBER = re.compile(
    r"(?<![\w.,\\^_{-])(\d+(?:,\d{3})*(?:\.\d+)?)(?:\s*(million|billion|thousand|M|B)(?![\w]))?"
)
ZH_NUMBER = re.compile(
    r"(?<![\w.,\\^_{-])(\d{1,3}(?:[ ,]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d])\s*(亿|万|百万|千万|M(?![A-Za-z])|million|billion)?"
)
SCALE = {
    "million": 1e6, "billion": 1e9, "thousand": 1e3, "M": 1e6, "B": 1e9,
    "万": 1e4, "亿": 1e8, "百万": 1e6, "千万": 1e7,
}  # fmt: skip

RULES = (
    "heading-gloss",
    "nested-parentheses",
    "bei-reduction",
    "link-text",
    "number-format",
    "term-spelling",
    "long-sentence",
    "book-term",
    "first-mention",
    "gloss-repeated",
    "gloss-basic",
)  # the last three: zh_store

#: page stem -> {rule: the exact number of its problems still allowed there}. Lower a count
#: when a unit is fixed; tests/test_zh_rules.py fails while a count is higher than needed.
RATCHET: dict[str, dict[str, int]] = {}


def number_values(text: str, chinese: bool) -> set[float]:
    """The values of the numbers in ``text``: "2.6 million" and "260 万" are both 2.6e6;
    "10,000", "10 000" and "10000" are 1e4 (and a number is also its bare value)."""
    values: set[float] = set()
    pattern = ZH_NUMBER if chinese else EN_NUMBER
    for m in pattern.finditer(text):
        digits = m.group(1).replace(",", "").replace(" ", "")
        try:
            value = float(digits)
        except ValueError:
            continue
        values.add(round(value, 9))
        if m.group(2):
            values.add(round(value * SCALE[m.group(2)], 6))
        if chinese and " " in m.group(1):  # "3 128" may be two numbers too
            values.update(round(float(p), 9) for p in m.group(1).split())
    return values


def english_scaled(text: str) -> dict[str, float]:
    """``{number as written: its value with the scale word after it}`` ("4 M" -> 4e6), for
    the numbers the English writes only with a scale word."""
    found = list(EN_NUMBER.finditer(text))
    bare = {m.group(1) for m in found if not m.group(2)}
    return {
        m.group(1): float(m.group(1).replace(",", "")) * SCALE[m.group(2)]
        for m in found
        if m.group(2) and m.group(1) not in bare
    }


def _strip_code(text: str) -> str:
    from ropebook import zh_store

    return zh_store._without(text, zh_store.CODE_BLOCK)


def _lines(text: str, kind: str) -> list[str]:
    """The heading lines or the table-cell lines of a unit (outside code blocks)."""
    lines = _strip_code(text).splitlines()
    if kind == "heading":
        return [line for line in lines if re.match(r"^#{1,6}\s", line)]
    cells = []
    in_table = False
    for line in lines:
        stripped = line.strip()
        if re.match(r"^(`{3,}|:{3,})\{list-table\}", stripped):
            in_table = True
            continue
        if in_table and re.fullmatch(r"`{3,}|:{3,}", stripped):
            in_table = False
            continue
        if stripped.startswith("|") or (in_table and re.match(r"^(\*\s+)?-\s", stripped)):
            cells.append(line)
    return cells


def heading_gloss_problems(key: str, chinese: str) -> list[str]:
    from ropebook import zh_store

    places = [("heading", line) for line in _lines(chinese, "heading")]
    places += [("table cell", line) for line in _lines(chinese, "table")]
    if key.endswith(zh_store.CAPTION):
        places.append(("caption", chinese))
    problems = []
    for where, text in places:
        for m in GLOSS.finditer(zh_store.prose(text)):
            if not is_gloss(m.group(1)):
                continue
            problems.append(
                f"[heading-gloss] English gloss in a {where}: {m.group(0)!r} "
                "(give the English once, at the first mention in the prose)"
            )
    return problems


def nested_parenthesis_problems(chinese: str) -> list[str]:
    from ropebook import zh_store

    text = re.sub(r"“[^”]*”", " ", zh_store.prose(chinese))
    problems = []
    stack: list[tuple[int, str]] = []
    for i, ch in enumerate(text):
        if ch in "（(":
            stack.append((i, ch))
        elif ch in "）)" and stack:
            start, opener = stack.pop()
            if not stack:
                continue
            inner = text[start + 1 : i]
            outer = stack[-1][1]
            if opener == "(" and outer == "(":
                continue  # a formula in plain ASCII
            if not CJK.search(inner) and not LATIN_WORD.search(inner):
                continue  # an equation number: （RoFormer 式 (16)）
            if re.fullmatch(r"\s*(?:eq|fig|ch)[\w.-]*\s*", inner):
                continue
            context = text[stack[-1][0] : i + 1].replace("\n", " ")
            problems.append(
                f"[nested-parentheses] a parenthesis inside a parenthesis: {context[:80]!r}"
            )
    return problems


def bei_problems(chinese: str) -> list[str]:
    from ropebook import zh_store

    text = zh_store.prose(chinese)
    return [
        f"[bei-reduction] a reduction written with 倍: {m.group(0).strip()!r} in "
        f"{text[max(0, m.start() - 12) : m.end() + 4].strip()!r}; write it as 为…的 1/N"
        for m in REDUCTION.finditer(text)
    ]


def link_text_problems(chinese: str) -> list[str]:
    from ropebook import zh_store

    no_code = zh_store._without(chinese, zh_store.CODE_BLOCK)
    texts = [m.group(1) for m in ROLE_TITLED.finditer(no_code)]
    texts += [m.group(1) for m in MD_LINK.finditer(zh_store.ROLE.sub(" ", no_code))]
    return [
        f"[link-text] link text without Chinese: {t!r}"
        for t in texts
        if LATIN_WORD.search(t) and not CJK.search(t)
    ]


def number_format_problems(chinese: str) -> list[str]:
    from ropebook import zh_store

    text = zh_store.prose(chinese)
    problems = []
    for m in SPACE_GROUPED.finditer(text):
        problems.append(f"[number-format] {m.group(0)!r}: group digits with a comma, "
                        f"{m.group(0).replace(' ', ',')}")  # fmt: skip
    for m in UNGROUPED.finditer(text):
        if IDENTIFIER_BEFORE.search(text[: m.start()]) or re.match(r"\s*号", text[m.end() :]):
            continue  # an identifier: #40320, issue 25681, 第 25681 号
        problems.append(f"[number-format] {m.group(0)!r}: group digits with a comma, "
                        f"{int(m.group(0)):,}")  # fmt: skip
    for m in SCALE_WORD.finditer(text):
        problems.append(f"[number-format] {m.group(0)!r}: write the count in 万 or 亿")
    for m in PERCENT_SPACE.finditer(text):
        problems.append(f"[number-format] {m.group(0)!r}: no space before %")
    return problems


def _spellings() -> dict[str, str]:
    """``{spelling to replace: the canonical term}`` from ``book/glossary_terms.json``: the
    sources' spellings (哈达码积 -> 哈达玛积) and this book's retired renderings."""
    from ropebook.glossary import glossary_settings

    settings = glossary_settings()
    found = {old: new for new, old in settings.get("source_spelling", {}).items()}
    for new, olds in settings.get("retired", {}).items():
        found.update(dict.fromkeys(olds, new))
    return found


def term_spelling_problems(chinese: str) -> list[str]:
    from ropebook import zh_store

    text = zh_store.prose(chinese)
    squeezed = re.sub(r"\s+", "", text)
    problems = []
    for old, new in _spellings().items():
        n = squeezed.count(re.sub(r"\s+", "", old))
        if n:
            problems += [f"[term-spelling] {old}: write the glossary's {new}"] * n
    return problems


#: The longest sentence allowed, in Chinese characters (see ``long-sentence``).
LONG_SENTENCE = 90
#: A line that starts a block of its own: blank, list item, heading, table row, quote.
BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|#{1,6}\s|\||\d+[A-Z]?\.\s|>|$)")


def sentences(chinese: str) -> list[str]:
    """The sentences of a unit's running prose (:func:`zh_store.prose`): the lines of a
    paragraph joined, then cut at 。！？; a list item, heading or table cell is a sentence
    of its own at least. Only pieces holding Chinese are kept."""
    from ropebook import zh_store

    blocks: list[str] = []
    current: list[str] = []
    for line in zh_store.prose(chinese).splitlines():
        if BLOCK_START.match(line):
            if current:
                blocks.append("".join(current))
                current = []
            if line.strip().startswith("|"):
                blocks += line.split("|")
                continue
            if line.lstrip().startswith("#"):
                blocks.append(line)
                continue
        current.append(line.strip())
    if current:
        blocks.append("".join(current))
    return [s.strip() for b in blocks for s in re.split(r"(?<=[。！？])", b) if CJK.search(s)]


def sentence_length(sentence: str) -> int:
    """A sentence's length in Chinese characters."""
    return len(CJK.findall(sentence))


def long_sentence_problems(chinese: str) -> list[str]:
    problems = []
    for sentence in sentences(chinese):
        n = sentence_length(sentence)
        if n > LONG_SENTENCE:
            problems.append(f"[long-sentence] a sentence of {n} 字 (over {LONG_SENTENCE}): "
                            f"{sentence[:30]!r}…; split it")  # fmt: skip
    return problems


def unit_problems(page: str, key: str, chinese: str) -> list[str]:
    """Every style problem of one translated unit (``page``: the page's stem)."""
    problems = []
    if page != "glossary":
        problems += heading_gloss_problems(key, chinese)
    problems += nested_parenthesis_problems(chinese)
    problems += bei_problems(chinese)
    if page != "references":
        problems += link_text_problems(chinese)
    problems += number_format_problems(chinese)
    if page != "glossary":  # the glossary shows each source spelling as such
        problems += term_spelling_problems(chinese)
    problems += long_sentence_problems(chinese)
    return problems


def rule_of(problem: str) -> str | None:
    m = re.search(r"\[([a-z-]+)\]", problem)
    return m.group(1) if m else None


def ratcheted(page: str, problems: list[str]) -> list[str]:
    """``problems`` less those :data:`RATCHET` still allows on ``page`` (all of a rule are
    kept when there are more than it allows)."""
    allowed = RATCHET.get(page, {})
    kept = []
    for problem in problems:
        rule = rule_of(problem)
        if rule in allowed:
            count = sum(rule_of(p) == rule for p in problems)
            if count <= allowed[rule]:
                continue
        kept.append(problem)
    return kept
