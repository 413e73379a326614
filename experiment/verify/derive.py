"""A computed answer confirmed by its working: `RESULT = EXPRESSION`, every operand in the article.

An answer such as `22.2% = (56.7 - 44.1) / 56.7` is confirmed when (1) every operand of the
expression is confirmed in the article at value level (`experiment.verify.match.verify`, so scales,
tables and spans work as for a stated answer), (2) the operands' units are compatible, and (3) the
expression's value, computed in decimal, equals the result within half a unit of the result's
last written digit. Anything else is a refusal with its reason, never an exception.

The expression is read by a small hand-written tokenizer and recursive-descent parser (never
`eval`): operands are figures as the normalizer reads them (`experiment.values.normalize.scan`),
the operators are `+ - × * x / ÷` (`x` only standing alone), with parentheses and unary minus.
The grammar, the precision rule, the unit rule and the limits are in docs/NORMALIZER.md
("Derivations"); `tests/test_derive.py` is the specification.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Context, Decimal, DivisionByZero, InvalidOperation, Overflow

from experiment.base.types import Span
from experiment.values.canonical import Quantity
from experiment.values.normalize import outermost, scan
from experiment.values.numbers import BEYOND, FRACTIONS, MAX_MAGNITUDE, VULGAR_FRACTIONS
from experiment.verify.match import verify

MAX_TOKENS = 100  # operands, operators and parentheses of one expression
MAX_DEPTH = 10  # parentheses and unary signs nested in one another
MAX_CHARS = 100_000  # an answer longer than this is not read at all

# Intermediate values carry 40 significant digits; the domain check after each step keeps every
# value between 10^-100 and 10^100 (the figures' domain), so nothing overflows.
_CTX = Context(
    prec=40, Emax=10_000, Emin=-10_000, traps=[InvalidOperation, DivisionByZero, Overflow]
)
_MINUS = "-−–"  # hyphen-minus, minus sign, en dash
_OPERATORS = {"+": "+", "*": "×", "×": "×", "·": "×", "/": "/", "÷": "/"}
_FRACTION_RESULT = re.compile(
    rf"[{''.join(VULGAR_FRACTIONS)}]|\b(?:{'|'.join(FRACTIONS)})\b", re.IGNORECASE
)
_DIGIT_RUN = re.compile(r"\d[\d,\u00a0\u202f ]*(?:\.\d+)?|\.\d+")
# a unit that counts as a bare factor in × and ÷: "45%" is 0.45 there, "3x" is 3
_FACTOR_UNITS = {"%": Decimal("0.01"), "x": Decimal(1)}
_PERCENT = ("%", "pp")


class Refused(Exception):
    """Internal: why the derivation cannot be read or computed (never leaves this module)."""


@dataclass(frozen=True)
class Operand:
    """One figure of the expression: as written, its value, and the article's evidence."""

    text: str
    value: Quantity
    spans: tuple[Span, ...] = ()
    reason: str = ""  # why the article does not confirm it; "" when it does
    # a figure the form supplies, which needs no span: "the whole" (the 100 of `100 - 7.1`) or
    # "the count" (the 2 of the average `(12.5 + 13.1) / 2`); "" for a figure of the article
    constant: str = ""

    @property
    def confirmed(self) -> bool:
        return bool(self.spans) or bool(self.constant)

    @property
    def span(self) -> Span | None:
        return self.spans[0] if self.spans else None


@dataclass(frozen=True)
class Derivation:
    """A `RESULT = EXPRESSION` answer and the verdict on it.

    `computed` is the expression's value in the result's terms (a ratio already times 100 when
    the result is a percentage), `None` when it could not be computed; `operands` are the
    expression's figures in written order (without the factor 100 of the percent form)."""

    answer: str
    result_text: str
    result: Quantity | None
    expression: str
    operands: tuple[Operand, ...]
    computed: Quantity | None
    confirmed: bool
    reason: str  # "" when confirmed


def is_derivation(answer: str) -> bool:
    """Whether `answer` is written as a derivation (it holds an `=`), not as a stated value."""
    return "=" in answer


# --- tokens ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    kind: str  # "num", "op", "(", ")"
    text: str


def _standalone_x(text: str, i: int) -> bool:
    before = text[i - 1] if i > 0 else " "
    after = text[i + 1] if i + 1 < len(text) else " "
    return (
        text[i] in "xX"
        and (before.isspace() or before == ")")
        and (after.isspace() or after == "(")
    )


def _operand_end(text: str, i: int) -> int:
    """Where the operand that starts at `i` ends: at the next operator or parenthesis. A sign
    glued to a digit or currency at the start, an exponent's sign ("1e-3", "10^-3") and a power
    ("10**6") belong to the figure."""
    j = i
    if text[j] in _MINUS:
        j += 1
    while j < len(text):
        c = text[j]
        if c in "()" or c in "+/÷×·" or _standalone_x(text, j):
            break
        if c == "*":
            if text.startswith("**", j) and j > i and text[j - 1].isdigit():
                j += 2
                continue
            break
        if c in _MINUS:
            prev = text[j - 1] if j > i else ""
            exponent = (
                prev == "^"
                or text[j - 2 : j] == "**"
                or (prev in "eE" and j - 2 >= i and text[j - 2].isdigit())
            )
            if not exponent:
                break
        j += 1
    return j


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if len(out) >= MAX_TOKENS:
            raise Refused(f"more than {MAX_TOKENS} tokens in the expression")
        prefix = not out or out[-1].kind in ("op", "(")
        if c in "()":
            out.append(_Token(c, c))
            i += 1
        elif c in _OPERATORS or _standalone_x(text, i):
            out.append(_Token("op", _OPERATORS.get(c, "×")))
            i += 1
        elif c in _MINUS and not (prefix and i + 1 < len(text) and _figure_start(text[i + 1])):
            out.append(_Token("op", "-"))
            i += 1
        else:
            end = _operand_end(text, i)
            out.append(_Token("num", text[i:end].strip()))
            i = end
    return out


def _figure_start(c: str) -> bool:
    return c.isdigit() or c in ".$€£¥"


# --- parser ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Num:
    index: int  # into the operands


@dataclass(frozen=True)
class _Neg:
    operand: _Node


@dataclass(frozen=True)
class _Bin:
    op: str  # "+", "-", "×", "/"
    left: _Node
    right: _Node


_Node = _Num | _Neg | _Bin


class _Parser:
    """expr := term (("+" | "-") term)*; term := unary (("×" | "/") unary)*;
    unary := ("-" | "+") unary | primary; primary := FIGURE | "(" expr ")"."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0
        self.figures: list[str] = []
        self.quantities: list[Quantity] = []

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def parse(self) -> _Node:
        node = self.expr()
        extra = self.peek()
        if extra is not None:
            what = "two figures without an operator" if extra.kind in ("num", "(") else None
            raise Refused(f"malformed expression: {what or f'unexpected {extra.text!r}'}")
        return node

    def expr(self) -> _Node:
        node = self.term()
        while (t := self.peek()) is not None and t.kind == "op" and t.text in "+-":
            self.i += 1
            node = _Bin(t.text, node, self.term())
        return node

    def term(self) -> _Node:
        node = self.unary()
        while (t := self.peek()) is not None and t.kind == "op" and t.text in "×/":
            self.i += 1
            node = _Bin(t.text, node, self.unary())
        return node

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Refused(f"the expression is nested deeper than {MAX_DEPTH}")

    def unary(self) -> _Node:
        t = self.peek()
        if t is not None and t.kind == "op" and t.text in "+-":
            self.i += 1
            self.nest()
            operand = self.unary()
            self.depth -= 1
            return _Neg(operand) if t.text == "-" else operand
        return self.primary()

    def primary(self) -> _Node:
        t = self.peek()
        if t is None:
            raise Refused("malformed expression: an operator without an operand after it")
        self.i += 1
        if t.kind == "num":
            self.quantities.append(read_figure(t.text, "the operand"))
            self.figures.append(t.text)
            return _Num(len(self.figures) - 1)
        if t.kind == "(":
            self.nest()
            node = self.expr()
            self.depth -= 1
            close = self.peek()
            if close is None or close.kind != ")":
                raise Refused("malformed expression: a '(' is never closed")
            self.i += 1
            return node
        if t.kind == ")":
            raise Refused("malformed expression: a ')' without its '(' or an empty '()'")
        raise Refused(f"malformed expression: an operator {t.text!r} without an operand before it")


# --- figures --------------------------------------------------------------------------------


def read_figure(text: str, role: str) -> Quantity:
    """The one figure `text` is, read as the normalizer reads figures, or `Refused` with why."""
    mentions = outermost(scan(text))
    if not mentions:
        raise Refused(f"{role} {text!r} is not a figure")
    if len(mentions) > 1:
        raise Refused(f"{role} {text!r} is more than one figure (use the operators + - × /)")
    m = mentions[0]
    if m.refused:
        raise Refused(f"{role} {text!r} is refused: {m.refused}")
    quantities = [v for v in m.values if isinstance(v, Quantity)]
    if not quantities:
        raise Refused(f"{role} {text!r} is a date, not a figure")
    q = quantities[0]
    if q.qualifier:
        raise Refused(f"{role} {text!r} is qualified ({q.qualifier}): not an exact figure")
    if m.start != 0 or m.end != len(text):
        raise Refused(f"{role} {text!r} is not one figure")
    if q.is_range:
        raise Refused(f"{role} {text!r} is a range, not one figure")
    if q.unit == "ord":
        raise Refused(f"{role} {text!r} is a rank, not a count")
    return q


def _dec(x: float) -> Decimal:
    return Decimal(repr(x))


def _half_unit(text: str, q: Quantity) -> Decimal:
    """Half a unit of the last written digit of `text`, in the value's terms: "22.2%" 0.05,
    "7" 0.5, "$1.5 million" 50000, "438.1p" 0.0005. A fraction ("½", "2½", "a third") is exact
    to two decimals (0.005), never to the unit of its whole part."""
    if _FRACTION_RESULT.search(text):
        return Decimal("0.005")
    run = _DIGIT_RUN.search(text)
    if run is None:
        return Decimal("0.5")  # a figure in words ("seven"): whole units
    digits = re.sub(r"[,\s\u00a0\u202f]", "", run.group())
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    written = Decimal(digits)
    factor = abs(_CTX.divide(_dec(q.low), written)) if written else Decimal(1)
    return Decimal("0.5").scaleb(-decimals) * factor


# --- arithmetic with units ------------------------------------------------------------------


@dataclass(frozen=True)
class _Val:
    value: Decimal
    unit: str  # "" for a bare number or a ratio


def _in_domain(v: Decimal) -> Decimal:
    if v and not -MAX_MAGNITUDE <= v.adjusted() < MAX_MAGNITUDE:
        raise Refused(f"a step of the expression is {BEYOND}")
    return v


def _names(unit: str) -> str:
    return unit or "a bare number"


def _factor(v: _Val) -> _Val:
    """A percentage or a multiple as the bare factor it is in × and ÷ ("45%" is 0.45)."""
    if v.unit in _FACTOR_UNITS:
        return _Val(_CTX.multiply(v.value, _FACTOR_UNITS[v.unit]), "")
    return v


def _add(op: str, a: _Val, b: _Val) -> _Val:
    if a.unit and b.unit and a.unit != b.unit:
        verb = "add" if op == "+" else "subtract"
        pair = f"{a.unit} and {b.unit}" if op == "+" else f"{b.unit} from {a.unit}"
        raise Refused(f"the units clash: cannot {verb} {pair}")
    value = _CTX.add(a.value, b.value) if op == "+" else _CTX.subtract(a.value, b.value)
    return _Val(value, a.unit or b.unit)


def _multiply(a: _Val, b: _Val) -> _Val:
    a, b = _factor(a), _factor(b)
    if a.unit and b.unit:
        raise Refused(f"the units clash: cannot multiply {a.unit} by {b.unit}")
    return _Val(_CTX.multiply(a.value, b.value), a.unit or b.unit)


def _divide(a: _Val, b: _Val) -> _Val:
    a, b = _factor(a), _factor(b)
    if b.unit and a.unit != b.unit:
        raise Refused(f"the units clash: cannot divide {_names(a.unit)} by {b.unit}")
    if not b.value:
        raise Refused("division by zero")
    return _Val(_CTX.divide(a.value, b.value), "" if b.unit else a.unit)


def _evaluate(node: _Node, figures: list[_Val]) -> _Val:
    if isinstance(node, _Num):
        return figures[node.index]
    if isinstance(node, _Neg):
        inner = _evaluate(node.operand, figures)
        return _Val(-inner.value, inner.unit)
    a, b = _evaluate(node.left, figures), _evaluate(node.right, figures)
    if node.op in "+-":
        out = _add(node.op, a, b)
    elif node.op == "×":
        out = _multiply(a, b)
    else:
        out = _divide(a, b)
    return _Val(_in_domain(out.value), out.unit)


def _percent_factor(node: _Node, figures: list[_Val]) -> int | None:
    """The operand index of a top-level factor 100 (`E × 100` or `100 × E`, a bare 100): the
    percent form, whose value is already in percent. None when the expression has none."""
    if not isinstance(node, _Bin) or node.op != "×":
        return None
    for factor in (node.right, node.left):
        if isinstance(factor, _Num) and figures[factor.index] == _Val(Decimal(100), ""):
            return factor.index
    return None


def _in_result_terms(expr: _Val, result: Quantity, percent_form: bool) -> _Val:
    """The expression's value in the result's unit, or `Refused` when the units cannot agree.

    A percentage result takes a percentage (or points) as it is, the percent form as it is, and a
    ratio times 100. A bare result or a bare expression takes the other's unit (a dropped unit,
    as the matcher allows); otherwise the units must be the same."""
    unit = result.unit
    if unit in _PERCENT:
        if percent_form and not expr.unit:
            return _Val(expr.value, unit)
        if expr.unit in _PERCENT:
            return _Val(expr.value, unit)
        if not expr.unit:
            return _Val(_CTX.multiply(expr.value, Decimal(100)), unit)
    elif not unit or not expr.unit or unit == expr.unit:
        return _Val(expr.value, unit or expr.unit)
    raise Refused(
        f"the units clash: the expression gives {_names(expr.unit)}, the result is {unit}"
    )


def _show(v: Decimal, places: int) -> str:
    """`v` to `places` decimals (where that fits the context's digits), trailing zeros dropped."""
    if not v or v.adjusted() + places + 1 < _CTX.prec:
        v = v.quantize(Decimal(1).scaleb(-places), context=_CTX)
    return format(v.normalize(context=_CTX), "f")


# --- confirming -----------------------------------------------------------------------------


def _split(answer: str) -> tuple[str, str]:
    if len(answer) > MAX_CHARS:
        raise Refused(f"longer than {MAX_CHARS} characters")
    parts = answer.split("=")
    if len(parts) != 2:
        raise Refused(
            "not a derivation: no '=' (write RESULT = EXPRESSION)"
            if len(parts) < 2
            else f"{len(parts) - 1} '=' signs: write one RESULT = EXPRESSION"
        )
    result, expression = parts[0].strip(), parts[1].strip()
    if not result:
        raise Refused("the result side (before '=') is empty")
    if not expression:
        raise Refused("the expression side (after '=') is empty")
    return result, expression


def _oriented(left: str, right: str) -> tuple[str, str, Quantity]:
    """The result, the expression and the result's value: `RESULT = EXPRESSION`, or the
    calculation first (`9 - 2 = 7`, as models often write it) when the left side is not one
    figure and the right side is; the left side's refusal otherwise."""
    try:
        return left, right, read_figure(left, "the result")
    except Refused:
        try:
            return right, left, read_figure(right, "the result")
        except Refused:
            pass
        raise


def confirm_derivation(answer: str, article: str) -> Derivation:
    """Whether `article` confirms the derivation `answer` (`RESULT = EXPRESSION`), with the
    evidence span of every operand; the reason when it does not."""
    result_text, expression, result = "", "", None
    try:
        result_text, expression = _split(answer)
        result_text, expression, result = _oriented(result_text, expression)
    except Refused as e:
        return Derivation(answer, result_text, result, expression, (), None, False, str(e))
    return _verdict(answer, expression, article, result_text, result)


def confirm_expression(expression: str, article: str) -> Derivation:
    """A calculation without a written result (the `calc` prompt's answer, `56.7 - 44.1`): the
    calculator computes the result, rounded to two decimals (`CALC_PLACES`), and `article`
    must confirm every operand, with units that agree. The result is the calculator's, so the
    arithmetic cannot be wrong; the operands can still be the wrong ones."""
    if len(expression) > MAX_CHARS:
        reason = f"longer than {MAX_CHARS} characters"
        return Derivation(expression, "", None, expression, (), None, False, reason)
    return _verdict(expression, expression.strip(), article, "", None)


CALC_PLACES = 2  # the decimals a computed result keeps (TAT-QA's golds keep two)


def shape(expression: str) -> str:
    """The operation `expression` performs at its top, by its parse: "difference" (`a - b`),
    "complement" (`100 - ...`), "sum" (`a + b + ...`), "average" (`(a + b) / 2`), "percent
    change" (`(a - b) / b`, times 100 or not), "ratio" (`a / b`, times 100 or not), "other"
    for any other calculation, "" when it does not parse. Figures are plain operands."""
    try:
        parser = _Parser(_tokens(expression))
        tree = parser.parse()
    except Refused:
        return ""
    figures = [_Val(_dec(q.low), q.unit) for q in parser.quantities]
    if isinstance(tree, _Bin) and tree.op == "×" and _percent_factor(tree, figures) is not None:
        hundred = tree.right if isinstance(tree.right, _Num) else tree.left
        tree = tree.left if hundred is tree.right else tree.right
    subtracts = isinstance(tree, _Bin) and tree.op == "-"
    if subtracts and isinstance(tree.left, _Num) and figures[tree.left.index].value == 100:
        return "complement"
    if isinstance(tree, _Bin) and tree.op == "-":
        return "difference" if _plain(tree.left) and _plain(tree.right) else "other"
    if _summands(tree):
        return "sum"
    if isinstance(tree, _Bin) and tree.op == "/" and _plain(tree.right):
        left = tree.left
        if _summands(left):
            count = figures[tree.right.index] if isinstance(tree.right, _Num) else None
            return "average" if count == _Val(Decimal(_summands(left)), "") else "other"
        if isinstance(left, _Bin) and left.op == "-" and _plain(left.left) and _plain(left.right):
            return "percent change"
        return "ratio" if _plain(left) else "other"
    return "other"


def _plain(node: _Node) -> bool:
    """A figure, or a figure with a sign."""
    return isinstance(node, _Num) or (isinstance(node, _Neg) and isinstance(node.operand, _Num))


def expression_of(answer: str) -> str | None:
    """The calculation of a `RESULT = EXPRESSION` answer (either side first, as
    `confirm_derivation` reads it), without its result; of a chain of steps
    (`(2 + 4) / 2 = 6 / 2 = 3`) its first calculation; None when it has neither form."""
    first = answer.split("=")[0].strip()
    if answer.count("=") > 1 and is_calculation(first):
        return first
    try:
        return _oriented(*_split(answer))[1]
    except Refused:
        return None


def magnitude(d: Derivation) -> Derivation:
    """`d` with a negative computed result as its size (`1525 - 1553` is 28 years): for a
    question that asks how many or how long, not for a change, where the sign is the answer."""
    if not d.confirmed or d.result is None or d.result.low >= 0:
        return d
    shown = d.result_text.lstrip("-−")
    return replace(d, result_text=shown, result=read_figure(shown, "the result"))


# two figures around one spaced hyphen, nothing else but a unit after them: "1939 - 1945"
_PAIR = re.compile(
    r"(?:from\s+)?(?P<a>\d[\d,]*(?:\.\d+)?)\s+-\s+(?P<b>\d[\d,]*(?:\.\d+)?)[^\d=+*/×÷()-]*"
)


def is_stated_range(text: str) -> bool:
    """Two figures joined by a spaced hyphen where the second is the larger ("1939 - 1945",
    "20 - 30%"): as a stated answer, a range as a text writes one, not a subtraction to a
    negative result (under the calc prompt, where a calculation was asked for, it is one)."""
    m = _PAIR.fullmatch(text.strip())
    if m is None:
        return False
    a, b = (float(m[k].replace(",", "")) for k in ("a", "b"))
    return a < b


def is_computed(answer: str, kind: str = "") -> bool:
    """Whether a stated answer (`factqa verify`) is confirmed as a derivation or a calculation:
    never a date (`kind` "date") nor a stated range ("1939 - 1945")."""
    if is_derivation(answer):
        return True
    return kind != "date" and is_calculation(answer) and not is_stated_range(answer)


def is_calculation(line: str) -> bool:
    """Whether `line` is a calculation rather than one figure: two or more figures joined by an
    operator (`1,250 - 75`, `(56.7-44.1)/44.1*100`). A range or a date ("1932-1935",
    "5/6/2010") is one figure: a minus or slash counts only spaced or beside parentheses."""
    text = line.strip()
    if not text or "=" in text or len(text) > MAX_CHARS:
        return False
    spaced = re.search(r"\S\s+[-−+*×/÷x]\s+[-−(\d$€£¥.]", text)
    glued = re.search(r"[\d)%]\s*[+*×÷]\s*[(\d$€£¥.]|\)\s*[-−/]|[-−/]\s*\(", text)
    return bool(spaced or glued)


def _verdict(
    answer: str, expression: str, article: str, result_text: str, result: Quantity | None
) -> Derivation:
    """The verdict on `expression` against `article`: against the written `result` when there
    is one, else with the calculator's value as the result."""
    try:
        parser = _Parser(_tokens(expression))
        tree = parser.parse()
        quantities = parser.quantities
    except Refused as e:
        return Derivation(answer, result_text, result, expression, (), None, False, str(e))
    figures = [_Val(_dec(q.low), q.unit) for q in quantities]
    factor = _percent_factor(tree, figures) if result is None or result.unit in _PERCENT else None
    operands = tuple(
        _confirm(text, q, article)
        for i, (text, q) in enumerate(zip(parser.figures, quantities, strict=True))
        if i != factor
    )
    operands = _with_constants(tree, figures, operands, factor)
    computed: Quantity | None = None
    value: _Val | None = None
    reason = ""
    try:
        raw = _evaluate(tree, figures)
        if result is None:  # the calculator's result, in the expression's own unit
            unit = "%" if factor is not None and not raw.unit else raw.unit
            value = _Val(raw.value, unit)
            result_text = _result_text(value)
            result = read_figure(result_text, "the result")
        else:
            value = _in_result_terms(raw, result, factor is not None)
        number = float(_CTX.plus(value.value))
        computed = Quantity(number, number, value.unit)
    except Refused as e:
        reason = str(e)
    # what is wrong with the answer itself first, then what the article lacks, then the sums
    missing = [o for o in operands if not o.confirmed]
    reasons = [reason] if reason else []
    reasons += [f"the operand {o.text!r} ({o.value.canonical()}): {o.reason}" for o in missing]
    if not reasons and value is not None and result is not None:
        reasons.append(_arithmetic(expression, value.value, result, result_text))
    reason = "; ".join(r for r in reasons if r)
    return Derivation(
        answer, result_text, result, expression, operands, computed, not reason, reason
    )


def _result_text(value: _Val) -> str:
    """The calculator's result as a figure the normalizer reads: at most `CALC_PLACES`
    decimals, with its unit where it has a written form (`%`), else bare."""
    shown = _show(value.value, CALC_PLACES)
    return f"{shown}%" if value.unit in _PERCENT else shown


def _with_constants(
    tree: _Node, figures: list[_Val], operands: tuple[Operand, ...], factor: int | None
) -> tuple[Operand, ...]:
    """`operands` with the figures the form supplies marked, never found in the text:
    - the whole: a bare 100 or 100% that the expression subtracts from (`100 - 7.1`,
      `100% - (7.1% + 2%)`) when every other operand is confirmed where the article writes it
      as a percentage ("How many percent were not ...?");
    - the count: the divisor n of an average of n figures (`(12.5 + 13.1) / 2`)."""
    if not isinstance(tree, _Bin):
        return operands
    if tree.op == "-" and isinstance(tree.left, _Num):
        index, name = tree.left.index, "the whole"
        if figures[index].value != 100 or figures[index].unit not in ("", "%"):
            return operands
        others_percent = True
    elif tree.op == "/" and isinstance(tree.right, _Num):
        index, name = tree.right.index, "the count"
        if figures[index] != _Val(Decimal(_summands(tree.left)), ""):
            return operands
        others_percent = False
    else:
        return operands
    at = index - (factor is not None and factor < index)  # the operands skip the factor 100
    others = [o for i, o in enumerate(operands) if i != at]
    if operands[at].confirmed or not others or not all(o.confirmed for o in others):
        return operands
    if others_percent and not all(_written_percent(o) for o in others):
        return operands
    marked = replace(operands[at], constant=name, reason="")
    return (*operands[:at], marked, *operands[at + 1 :])


def _summands(node: _Node) -> int:
    """How many figures `node` adds up (`a + b + c` 3); 0 when it is not a plain sum of two or
    more figures."""

    def count(n: _Node) -> int:
        if isinstance(n, _Num):
            return 1
        if isinstance(n, _Bin) and n.op == "+":
            left, right = count(n.left), count(n.right)
            return left + right if left and right else 0
        return 0

    total = count(node)
    return total if total >= 2 else 0


def _written_percent(operand: Operand) -> bool:
    """Whether `operand` is confirmed at a span the article writes as a percentage."""
    for span in operand.spans:
        for m in outermost(scan(span.text)):
            if any(isinstance(v, Quantity) and v.unit in _PERCENT for v in m.values):
                return True
    return False


def _confirm(text: str, q: Quantity, article: str) -> Operand:
    verdict = verify(q, article, text)
    return Operand(text, q, verdict.spans, "" if verdict.confirmed else verdict.reason)


def _arithmetic(expression: str, value: Decimal, result: Quantity, result_text: str) -> str:
    """ "" when `value` rounds to the written result, else "the arithmetic is wrong (...)"."""
    stated = _dec(result.low)
    half = _half_unit(result_text, result)
    if abs(_CTX.subtract(value, stated)) <= half:
        return ""
    places = max(0, -half.adjusted()) + 2
    unit = f" {result.unit}" if result.unit else ""
    return (
        f"the arithmetic is wrong ({expression} = {_show(value, places)}{unit}, not {result_text})"
    )
