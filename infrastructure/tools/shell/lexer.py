r"""POSIX sh tokens: the first stage of ``syntax``, turning text into words, operators and newlines.

Words come out after quote removal, the way ``sh`` hands them to a program: ``'…'`` is literal,
``"…"`` keeps ``\`` escapes only before ``$ ` " \`` and newline, a backslash outside quotes
escapes the next character, ``\<newline>`` joins lines. Expansions are kept verbatim (``$x`` stays
``$x``) and flagged, because their value is only known when the shell runs. The bodies of
``$(…)``, backticks and ``<(…)``/``>(…)`` are tokenized recursively and attached to the word, so
the parser can find the commands inside them. Here-document bodies are consumed at the newline
that follows their operator, so their lines are never read as commands.

Anything malformed (unterminated quotes or substitutions, nesting deeper than ``MAX_DEPTH``)
raises ``ShellSyntaxError``; the parser turns that into an error the caller must treat as unsafe.
Known simplification: a ``case`` pattern's ``)`` inside ``$(…)`` ends the substitution early, which
makes the rest unbalanced, i.e. an error — never a quieter reading.
"""

from __future__ import annotations

from dataclasses import replace

from quorum.infrastructure.tools.shell.tokens import NAME_CHARS, NAME_START, Token, make_word

MAX_DEPTH = 12
"""How deeply substitutions (and, in the parser, ``sh -c`` scripts) may nest before we give up."""

OPERATORS = (
    *(";;&", "<<<", "<<-", "&>>", "&&", "||", ";;", ";&", "|&", "<<", ">>", "<&", ">&", "<>", ">|", "&>"),
    *("|", "&", ";", "(", ")", "<", ">"),
)
"""Longest first, so the scanner can take the first match."""

REDIRECTIONS = frozenset({"<", ">", ">>", "<<", "<<-", "<<<", "<&", ">&", "<>", ">|", "&>", "&>>"})
_WORD_END = frozenset(" \t\n|&;()<>")
_SPECIAL_PARAMETERS = frozenset("@*#?$!-0123456789")
_ANSI_C = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v"}


class ShellSyntaxError(ValueError):
    """The text is not a complete, well-formed shell command."""


def tokenize(text: str, depth: int = 0) -> tuple[Token, ...]:
    """The tokens of ``text``.

    Raises:
        ShellSyntaxError: Unterminated quotes or substitutions, or nesting deeper than ``MAX_DEPTH``.
    """
    return tuple(_Lexer(text, depth).tokens(closing=False))


class _Lexer:
    def __init__(self, text: str, depth: int, pos: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise ShellSyntaxError("substitutions are nested too deeply")
        self.text, self.depth, self.pos = text, depth, pos
        self._heredocs: list[tuple[int, bool]] = []  # (index of the delimiter token, strip tabs)
        self._out: list[Token] = []
        self._expansions_open = 0  # ${…} and $((…)) being skipped, which nest without a new lexer

    def _at(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.text[index] if index < len(self.text) else ""

    def tokens(self, closing: bool) -> list[Token]:
        """Tokens to the end of the text, or (``closing``) to the ``)`` ending a ``$(``, consumed."""
        out, parens, expect_delimiter = self._out, 0, None
        while True:
            char = self._at()
            if not char:
                if closing:
                    raise ShellSyntaxError("unterminated $(")
                return out
            if char in " \t" or (char == "\\" and self._at(1) == "\n"):
                self.pos += 1 if char != "\\" else 2
            elif char == "\n":
                self.pos += 1
                out.append(Token("newline", "\n"))
                self._read_heredocs()
            elif char == "#":  # only reached at a token start, where sh starts a comment
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            elif (operator := self._operator()) is not None:
                if operator == ")" and closing and parens == 0:
                    return out
                parens += {"(": 1, ")": -1}.get(operator, 0)
                out.append(Token("operator", operator))
                expect_delimiter = operator.endswith("-") if operator in ("<<", "<<-") else None
            else:
                word = self._word()
                if (
                    word.text.isascii()
                    and word.text.isdigit()
                    and not word.quoted
                    and self._at() in ("<", ">")
                    and self._at(1) != "("
                ):
                    operator = self._operator() or ""  # every operator starting with < or > redirects
                    out.append(Token("operator", operator, fd=int(word.text[-9:])))
                    expect_delimiter = operator.endswith("-") if operator in ("<<", "<<-") else None
                    continue
                if expect_delimiter is not None:
                    self._heredocs.append((len(out), expect_delimiter))
                expect_delimiter = None
                out.append(word)

    def _operator(self) -> str | None:
        if self._at() in "<>" and self._at(1) == "(":
            return None  # process substitution: a word
        for operator in OPERATORS:
            if self.text.startswith(operator, self.pos):
                self.pos += len(operator)
                return operator
        return None

    def _read_heredocs(self) -> None:
        """Consume the bodies of the here-documents opened on the line that just ended."""
        for index, strip_tabs in self._heredocs:
            delimiter = self._out[index]
            lines: list[str] = []
            while self.pos < len(self.text):
                end = self.text.find("\n", self.pos)
                end = len(self.text) if end < 0 else end
                line, self.pos = self.text[self.pos : end], min(end + 1, len(self.text))
                if (line.lstrip("\t") if strip_tabs else line) == delimiter.text:
                    break
                lines.append(line)
            body = "\n".join(lines)
            if not delimiter.quoted and ("$" in body or "`" in body):
                # An unquoted delimiter means the body is expanded like a "…" string, $(…) included.
                _, subs, _ = _Lexer(body, self.depth).double_quoted_parts(heredoc=True)
                self._out[index] = replace(delimiter, expansion=True, substitutions=delimiter.substitutions + subs)
        self._heredocs = []

    def _word(self) -> Token:
        chars: list[tuple[str, bool]] = []  # (character, quoted)
        subs: list[tuple[Token, ...]] = []
        quoted = expansion = False
        while (char := self._at()) and (char not in _WORD_END or (char in "<>" and self._at(1) == "(")):
            if char in "<>":  # process substitution <(…) / >(…)
                start, self.pos = self.pos, self.pos + 2
                subs.append(self._substitution())
                chars += [(c, True) for c in self.text[start : self.pos]]
                expansion = True
            elif char == "\\":
                nxt = self._at(1)
                self.pos += 2 if nxt else 1
                if nxt != "\n":
                    chars.append((nxt or "\\", True))
                quoted = True
            elif char == "'":
                end = self.text.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated single quote")
                chars += [(c, True) for c in self.text[self.pos + 1 : end]]
                self.pos, quoted = end + 1, True
            elif char == '"':
                self.pos += 1
                value, inner, found = self.double_quoted_parts()
                chars += [(c, True) for c in value]
                subs += inner
                quoted, expansion = True, expansion or found
            elif char in "$`":
                value, inner = self._dollar(in_double_quotes=False) if char == "$" else self._backtick(False)
                chars += [(c, True) for c in value]
                subs += inner
                expansion = True
            else:
                chars.append((char, False))
                self.pos += 1
        return make_word(chars, quoted, expansion, tuple(subs))

    def double_quoted(self) -> tuple[str, tuple[tuple[Token, ...], ...]]:
        """The value and substitutions of a ``"…"`` string starting at the current position."""
        value, subs, _ = self.double_quoted_parts()
        return value, subs

    def double_quoted_parts(self, heredoc: bool = False) -> tuple[str, tuple[tuple[Token, ...], ...], bool]:
        """Value, substitutions and whether anything expands; ``heredoc``: a body, ending at the end."""
        value: list[str] = []
        subs: list[tuple[Token, ...]] = []
        expansion = False
        escapable = ("$", "`", "\\", "\n") if heredoc else ("$", "`", '"', "\\", "\n")
        while (char := self._at()) != '"' or heredoc:
            if not char:
                if heredoc:
                    break
                raise ShellSyntaxError("unterminated double quote")
            if char == "\\" and self._at(1) in escapable:
                if self._at(1) != "\n":
                    value.append(self._at(1))
                self.pos += 2
            elif char in "$`":
                text, inner = self._dollar(in_double_quotes=True) if char == "$" else self._backtick(True)
                value.append(text)
                subs += inner
                expansion = True
            else:
                value.append(char)
                self.pos += 1
        self.pos += 1
        return "".join(value), tuple(subs), expansion

    def _substitution(self) -> tuple[Token, ...]:
        """Tokens of a ``$(``/``<(`` body; the position is just after the ``(``."""
        inner = _Lexer(self.text, self.depth + 1, self.pos)
        tokens = inner.tokens(closing=True)
        self.pos = inner.pos
        return tuple(tokens)

    def _backtick(self, in_double_quotes: bool) -> tuple[str, tuple[tuple[Token, ...], ...]]:
        start, body = self.pos, []
        self.pos += 1
        while (char := self._at()) != "`":
            if not char:
                raise ShellSyntaxError("unterminated backtick")
            if char == "\\" and self._at(1) in ("`", "$", "\\") + (('"',) if in_double_quotes else ()):
                body.append(self._at(1))
                self.pos += 2
            else:
                body.append(char)
                self.pos += 1
        self.pos += 1
        return self.text[start : self.pos], (tuple(_Lexer("".join(body), self.depth + 1).tokens(closing=False)),)

    def _dollar(self, in_double_quotes: bool) -> tuple[str, tuple[tuple[Token, ...], ...]]:
        """Any ``$`` form, returned verbatim with the substitutions inside it."""
        start, nxt = self.pos, self._at(1)
        subs: tuple[tuple[Token, ...], ...] = ()
        if nxt == "(" and self._at(2) == "(":
            self.pos += 3
            subs = self._balanced(opening="(", closing=")", depth=2)
        elif nxt == "(":
            self.pos += 2
            subs = (self._substitution(),)
        elif nxt == "{":
            self.pos += 2
            subs = self._balanced(opening="", closing="}", depth=1)
        elif nxt in NAME_START:
            self.pos += 1
            while self._at() and self._at() in NAME_CHARS:
                self.pos += 1
        elif nxt and nxt in _SPECIAL_PARAMETERS:
            self.pos += 2
        elif nxt == "'" and not in_double_quotes:  # bash ANSI-C quoting: decoded, still flagged
            self.pos += 2
            return self._ansi_c(), ()
        elif nxt == '"' and not in_double_quotes:  # bash locale string: a "…" string
            self.pos += 2
            value, subs = self.double_quoted()
            return value, subs
        else:
            self.pos += 1  # a lone '$' is literal, but still reported as an expansion (err high)
        return self.text[start : self.pos], subs

    def _balanced(self, opening: str, closing: str, depth: int) -> tuple[tuple[Token, ...], ...]:
        """Skip to the ``closing`` that balances ``depth`` open ones, collecting inner substitutions."""
        self._expansions_open += 1
        if self._expansions_open > MAX_DEPTH:
            raise ShellSyntaxError("expansions are nested too deeply")
        subs: list[tuple[Token, ...]] = []
        while depth:
            char = self._at()
            if not char:
                raise ShellSyntaxError(f"unterminated expansion (missing {closing!r})")
            if char == "\\":
                self.pos += 2
            elif char == "'" and closing == "}":
                end = self.text.find("'", self.pos + 1)
                self.pos = len(self.text) if end < 0 else end + 1
            elif char == '"':
                self.pos += 1
                subs += self.double_quoted()[1]
            elif char in "$`":
                subs += (self._dollar(in_double_quotes=False) if char == "$" else self._backtick(False))[1]
            else:
                depth += (char == opening) - (char == closing)
                self.pos += 1
        self._expansions_open -= 1
        return tuple(subs)

    def _ansi_c(self) -> str:
        out: list[str] = []
        while (char := self._at()) != "'":
            if not char:
                raise ShellSyntaxError("unterminated $'…' string")
            if char == "\\" and self._at(1):
                escape = self._at(1)
                out.append(_ANSI_C.get(escape, escape if escape in "\\'\"?" else "\\" + escape))
                self.pos += 2
            else:
                out.append(char)
                self.pos += 1
        self.pos += 1
        return "".join(out)
