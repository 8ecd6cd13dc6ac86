//! Lexer and parser for DiskSim 4.0's parameter language ("libparam").
//!
//! This is the syntax used by `.parv`, `.diskspecs` and `.model` files. The parser
//! only builds a tree: checking that names and types make sense is left to the loaders
//! that consume [`Block`]s.
//!
//! Lexing follows the longest-match rules of the original: a token is either one
//! punctuation character, a `#` comment (only when `#` starts a token), or a maximal
//! run of "string" characters that is then classified as a keyword, number or string.
//! `source FILE` is expanded inside the lexer by splicing the tokens of FILE, so it can
//! appear anywhere a token can (e.g. `Model = source cheetah9LP.model,`).

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Deepest `source` nesting accepted (the top-level file is level 0).
const MAX_SOURCE_DEPTH: usize = 32;
/// Deepest block/list/topology nesting accepted; guards the recursive parser's stack.
const MAX_NESTING: usize = 128;
/// Most `source` splices in one parameter file, counting every level (a file that
/// sources itself twice per level would otherwise splice 2^32 times).
const MAX_SOURCED_FILES: usize = 4096;
/// Largest parameter file, and largest total of all files spliced into one, bytes.
pub const MAX_PARAM_BYTES: u64 = 64 << 20;
/// Most tokens (numbers, names, punctuation) the files of one parameter file may hold
/// together: a token and what is parsed from it take about 100 bytes, so the size
/// limit alone would let a file of small list items take gigabytes.
pub const MAX_TOKENS: usize = 1 << 22;
/// Largest number of names a single `a .. b` range, and all ranges of a file together,
/// may expand to.
const MAX_RANGE_LEN: u64 = 1_000_000;

// ---------------------------------------------------------------------------------
// Public data model
// ---------------------------------------------------------------------------------

/// Where something came from: file and 1-based line.
#[derive(Clone, Debug, PartialEq)]
pub struct Loc {
    pub file: Arc<PathBuf>,
    pub line: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// A parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Item>),
    Block(Block),
}

/// A list element (ranges are already expanded into `Str` items).
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub value: Value,
    pub loc: Loc,
}

/// One `name = value` assignment inside a block.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub value: Value,
    pub loc: Loc,
}

/// A block: `TYPE NAME { ... }` (named) or `TYPE { ... }` (anonymous value).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// e.g. "disksim_disk", "dm_layout_g1_zone", or a user block name used as a type.
    pub type_name: String,
    /// `Some` for a blockdef, `None` for an anonymous block value.
    pub name: Option<String>,
    /// In file order.
    pub params: Vec<Param>,
    /// Location of the type token.
    pub loc: Loc,
}

/// `instantiate [names] as spec`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instantiation {
    pub names: Vec<String>,
    pub spec: String,
    pub loc: Loc,
}

/// `topology TYPE NAME [ children ]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    pub type_name: String,
    pub name: String,
    pub children: Vec<Topology>,
    pub loc: Loc,
}

/// Everything found at the top level of a parameter file (after splicing sources).
#[derive(Clone, Debug, Default)]
pub struct ParamFile {
    /// Top-level blockdefs in order; a redefinition of an existing name is dropped.
    pub blocks: Vec<Block>,
    pub instantiations: Vec<Instantiation>,
    pub topologies: Vec<Topology>,
    /// Every named block, nested ones included → the first top-level block holding
    /// it: a type lookup searches one block, not the whole file (a sourced model's
    /// zone lists are large, and every resolve asks for a built-in type found nowhere).
    /// Built by the parser once `blocks` is complete.
    types: rustc_hash::FxHashMap<String, usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum ParamError {
    #[error("{loc}: {msg}")]
    Syntax { loc: Loc, msg: String },
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn syntax<T>(loc: &Loc, msg: impl Into<String>) -> Result<T, ParamError> {
    Err(ParamError::Syntax {
        loc: loc.clone(),
        msg: msg.into(),
    })
}

/// Parse the parameter file at `path`, following `source` directives.
pub fn parse_file(path: &Path) -> Result<ParamFile, ParamError> {
    let bytes = read_limited(path).map_err(|source| ParamError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_bytes(&bytes, path)
}

thread_local! {
    /// The files read while [`files_read_by`] runs on this thread (`None`: no one asks).
    static READ_LOG: std::cell::RefCell<Option<Vec<PathBuf>>> = const { std::cell::RefCell::new(None) };
}

/// Notes that a parameter file, a file it sources or one it names was read.
pub(crate) fn note_read(path: &Path) {
    READ_LOG.with(|log| {
        if let Some(files) = log.borrow_mut().as_mut() {
            files.push(path.to_path_buf());
        }
    });
}

/// Runs `f` and returns, with its result, every file the parameter-file readers read
/// during it (a `.parv`, what it sources, the seek curves it names): what a command
/// must not write over.
pub fn files_read_by<T>(f: impl FnOnce() -> T) -> (T, Vec<PathBuf>) {
    let outer = READ_LOG.with(|log| log.borrow_mut().replace(Vec::new()));
    let out = f();
    let files = READ_LOG.with(|log| {
        let mut log = log.borrow_mut();
        let mine = std::mem::replace(&mut *log, outer).unwrap_or_default();
        // An enclosing call sees these files too.
        if let Some(outer) = log.as_mut() {
            outer.extend(mine.iter().cloned());
        }
        mine
    });
    (out, files)
}

/// Reads a file of at most [`MAX_PARAM_BYTES`] (a device or a huge file is refused
/// before it fills memory).
fn read_limited(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    note_read(path);
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_PARAM_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_PARAM_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {MAX_PARAM_BYTES} bytes, the limit for a parameter file"
        )));
    }
    Ok(bytes)
}

/// What the `source` splices of one parse have used so far.
#[derive(Default)]
struct Spliced {
    files: usize,
    bytes: u64,
}

/// Parse text as if it were the file `path` (sources resolve relative to path's directory).
pub fn parse_str(text: &str, path: &Path) -> Result<ParamFile, ParamError> {
    parse_bytes(text.as_bytes(), path)
}

/// Files need not be UTF-8, so the real entry point works on bytes.
fn parse_bytes(bytes: &[u8], path: &Path) -> Result<ParamFile, ParamError> {
    let file = Arc::new(path.to_path_buf());
    // About one token per four bytes or fewer in DiskSim's files: reserved at once so
    // the token list is not regrown and copied while lexing.
    let mut toks = Vec::with_capacity(bytes.len() / 4 + 16);
    let mut spliced = Spliced {
        files: 0,
        bytes: bytes.len() as u64,
    };
    let last_line = lex_into(bytes, &file, 0, &mut spliced, &mut toks)?;
    let eof = Token {
        tok: Tok::Eof,
        loc: Loc {
            file,
            line: last_line,
        },
    };
    Parser::new(toks, eof).parse_file()
}

impl Block {
    /// First param with that exact name.
    pub fn get(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Resolve inheritance: if `self.type_name` names a user-defined block in `file`,
    /// return a block whose params are the parent's params (recursively resolved)
    /// overridden by self's; the result's `type_name` is the builtin root type.
    ///
    /// Overridden parameters keep the parent's position (so order-sensitive loaders see
    /// e.g. geometry before layout as in the parent); new ones are appended. Cyclic
    /// chains are cut at the first repeated name.
    pub fn resolved(&self, file: &ParamFile) -> Block {
        let (root_type, params) = self.resolved_ref(file);
        Block {
            type_name: root_type.to_string(),
            name: self.name.clone(),
            params: params.into_iter().cloned().collect(),
            loc: self.loc.clone(),
        }
    }

    /// [`Block::resolved`] without copying: the builtin root type and the params in
    /// the same order, borrowed from the blocks that define them.
    pub fn resolved_ref<'a>(&'a self, file: &'a ParamFile) -> (&'a str, Vec<&'a Param>) {
        let mut seen: Vec<&str> = self.name.iter().map(String::as_str).collect();
        let mut chain: Vec<&Block> = Vec::new();
        let mut root_type = &self.type_name;
        while let Some(parent) = file.find_type(root_type) {
            let parent_name = parent.name.as_deref().unwrap_or_default();
            if seen.contains(&parent_name) {
                break;
            }
            seen.push(parent_name);
            chain.push(parent);
            root_type = &parent.type_name;
        }
        if chain.is_empty() {
            return (root_type, self.params.iter().collect());
        }
        let mut params: Vec<&Param> = Vec::new();
        for block in chain.iter().rev().copied().chain(std::iter::once(self)) {
            overlay(&mut params, &block.params);
        }
        (root_type, params)
    }
}

/// Apply `overrides` on top of `base`: replace same-named params in place, append new ones.
fn overlay<'a>(base: &mut Vec<&'a Param>, overrides: &'a [Param]) {
    for p in overrides {
        match base.iter_mut().find(|b| b.name == p.name) {
            Some(slot) => *slot = p,
            None => base.push(p),
        }
    }
}

impl ParamFile {
    /// Top-level blockdef by name.
    pub fn block(&self, name: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.name.as_deref() == Some(name))
    }

    /// A user-defined type: the first named block called `name`, searching top-level
    /// blocks and blockdefs nested as values, in file order (a blockdef used as a value,
    /// like a sourced `dm_disk` model, also defines a type).
    pub fn find_type(&self, name: &str) -> Option<&Block> {
        let &i = self.types.get(name)?;
        find_named_in_block(&self.blocks[i], name)
    }

    /// Indexes the named blocks of `blocks` for [`ParamFile::find_type`].
    fn index_types(&mut self) {
        fn walk_block(b: &Block, i: usize, types: &mut rustc_hash::FxHashMap<String, usize>) {
            if let Some(n) = &b.name {
                types.entry(n.clone()).or_insert(i);
            }
            for p in &b.params {
                walk_value(&p.value, i, types);
            }
        }
        fn walk_value(v: &Value, i: usize, types: &mut rustc_hash::FxHashMap<String, usize>) {
            match v {
                Value::Block(b) => walk_block(b, i, types),
                Value::List(items) => items.iter().for_each(|x| walk_value(&x.value, i, types)),
                _ => {}
            }
        }
        let mut types = rustc_hash::FxHashMap::default();
        for (i, b) in self.blocks.iter().enumerate() {
            walk_block(b, i, &mut types);
        }
        self.types = types;
    }
}

fn find_named_in_block<'a>(block: &'a Block, name: &str) -> Option<&'a Block> {
    if block.name.as_deref() == Some(name) {
        return Some(block);
    }
    block
        .params
        .iter()
        .find_map(|p| find_named_in_value(&p.value, name))
}

fn find_named_in_value<'a>(value: &'a Value, name: &str) -> Option<&'a Block> {
    match value {
        Value::Block(b) => find_named_in_block(b, name),
        Value::List(items) => items
            .iter()
            .find_map(|i| find_named_in_value(&i.value, name)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Eq,
    Semi,
    Colon,
    Question,
    DotDot,
    Topology,
    Instantiate,
    As,
    Int(i64),
    Float(f64),
    Str(String),
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    loc: Loc,
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::LBrace => "'{'".into(),
        Tok::RBrace => "'}'".into(),
        Tok::LBracket => "'['".into(),
        Tok::RBracket => "']'".into(),
        Tok::Comma => "','".into(),
        Tok::Eq => "'='".into(),
        Tok::Semi => "';'".into(),
        Tok::Colon => "':'".into(),
        Tok::Question => "'?'".into(),
        Tok::DotDot => "'..'".into(),
        Tok::Topology => "keyword `topology`".into(),
        Tok::Instantiate => "keyword `instantiate`".into(),
        Tok::As => "keyword `as`".into(),
        Tok::Int(v) => format!("integer `{v}`"),
        Tok::Float(v) => format!("number `{v}`"),
        Tok::Str(s) => format!("`{s}`"),
        Tok::Eof => "end of input".into(),
    }
}

fn punctuation(b: u8) -> Option<Tok> {
    Some(match b {
        b'{' => Tok::LBrace,
        b'}' => Tok::RBrace,
        b'[' => Tok::LBracket,
        b']' => Tok::RBracket,
        b',' => Tok::Comma,
        b'=' => Tok::Eq,
        b';' => Tok::Semi,
        b':' => Tok::Colon,
        b'?' => Tok::Question,
        _ => return None,
    })
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Characters that may appear in a string token (everything but whitespace and punctuation).
fn is_word_byte(b: u8) -> bool {
    !is_space(b) && punctuation(b).is_none()
}

/// Cursor over one file's bytes.
struct Lexer<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    file: &'a Arc<PathBuf>,
}

impl<'a> Lexer<'a> {
    fn loc(&self) -> Loc {
        Loc {
            file: Arc::clone(self.file),
            line: self.line,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skip whitespace and comments. CR, LF and CRLF each end one line.
    fn skip_trivia(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' => self.pos += 1,
                b'\n' => {
                    self.pos += 1;
                    self.line = self.line.saturating_add(1);
                }
                b'\r' => {
                    self.pos += 1;
                    if self.peek() == Some(b'\n') {
                        self.pos += 1;
                    }
                    self.line = self.line.saturating_add(1);
                }
                // `#` here begins a token, so it starts a comment.
                b'#' => {
                    while !matches!(self.peek(), None | Some(b'\n' | b'\r')) {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// The maximal run of string characters at the cursor (possibly empty).
    fn word(&mut self) -> &'a [u8] {
        let start = self.pos;
        while self.peek().is_some_and(is_word_byte) {
            self.pos += 1;
        }
        self.bytes.get(start..self.pos).unwrap_or_default()
    }
}

/// Lex `bytes` (the contents of `file`) onto `out`, splicing sourced files.
/// Returns the line number at end of input.
fn lex_into(
    bytes: &[u8],
    file: &Arc<PathBuf>,
    depth: usize,
    spliced: &mut Spliced,
    out: &mut Vec<Token>,
) -> Result<u32, ParamError> {
    let mut lx = Lexer {
        bytes,
        pos: 0,
        line: 1,
        file,
    };
    loop {
        lx.skip_trivia();
        let Some(b) = lx.peek() else {
            // A final line break does not start a real line: report EOF on the last one.
            let ends_with_break = matches!(bytes.last(), Some(b'\n' | b'\r'));
            return Ok(if ends_with_break {
                lx.line.saturating_sub(1).max(1)
            } else {
                lx.line
            });
        };
        let loc = lx.loc();
        if out.len() >= MAX_TOKENS {
            return syntax(
                &loc,
                format!("the parameter files hold more than {MAX_TOKENS} tokens in all"),
            );
        }
        if let Some(tok) = punctuation(b) {
            lx.pos += 1;
            out.push(Token { tok, loc });
            continue;
        }
        let word = lx.word();
        if word == b"source" {
            lx.skip_trivia();
            let name = lx.word();
            if name.is_empty() {
                let found = lx.peek().and_then(punctuation).unwrap_or(Tok::Eof);
                return syntax(
                    &lx.loc(),
                    format!(
                        "expected file name after `source`, found {}",
                        describe(&found)
                    ),
                );
            }
            splice_source(&String::from_utf8_lossy(name), &loc, depth, spliced, out)?;
            continue;
        }
        let tok = classify(word, &loc)?;
        out.push(Token { tok, loc });
    }
}

/// Handle `source NAME` found at `loc`: lex the named file in place.
fn splice_source(
    name: &str,
    loc: &Loc,
    depth: usize,
    spliced: &mut Spliced,
    out: &mut Vec<Token>,
) -> Result<(), ParamError> {
    if depth >= MAX_SOURCE_DEPTH {
        return syntax(
            loc,
            format!("`source {name}`: files nested more than {MAX_SOURCE_DEPTH} levels deep"),
        );
    }
    spliced.files += 1;
    if spliced.files > MAX_SOURCED_FILES {
        return syntax(
            loc,
            format!("`source {name}`: more than {MAX_SOURCED_FILES} files sourced in all"),
        );
    }
    let (path, bytes) = read_sourced(name, &loc.file).or_else(|(path, e)| {
        syntax(
            loc,
            format!("cannot read sourced file `{}`: {e}", path.display()),
        )
    })?;
    spliced.bytes += bytes.len() as u64;
    if spliced.bytes > MAX_PARAM_BYTES {
        return syntax(
            loc,
            format!(
                "`source {name}`: the files sourced add up to more than {MAX_PARAM_BYTES} bytes"
            ),
        );
    }
    lex_into(&bytes, &Arc::new(path), depth + 1, spliced, out)?;
    Ok(())
}

/// Read a sourced file: relative to the including file's directory, then each `LP_PATH`
/// directory. On failure returns the primary candidate and its error.
fn read_sourced(
    name: &str,
    including: &Path,
) -> Result<(PathBuf, Vec<u8>), (PathBuf, std::io::Error)> {
    let base = including.parent().unwrap_or_else(|| Path::new(""));
    let primary = base.join(name);
    let first_err = match read_limited(&primary) {
        Ok(bytes) => return Ok((primary, bytes)),
        Err(e) => e,
    };
    if let Some(lp_path) = std::env::var_os("LP_PATH") {
        for dir in std::env::split_paths(&lp_path) {
            let candidate = dir.join(name);
            if let Ok(bytes) = read_limited(&candidate) {
                return Ok((candidate, bytes));
            }
        }
    }
    Err((primary, first_err))
}

/// Classify a whole word. Every keyword/number pattern only uses string characters, so
/// a pattern wins exactly when it matches the entire word (ties go to the earlier rule).
fn classify(word: &[u8], loc: &Loc) -> Result<Tok, ParamError> {
    match word {
        b".." => return Ok(Tok::DotDot),
        b"topology" => return Ok(Tok::Topology),
        b"instantiate" => return Ok(Tok::Instantiate),
        b"as" => return Ok(Tok::As),
        _ => {}
    }
    let text = String::from_utf8_lossy(word);
    let (negative, unsigned) = match word.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, word),
    };
    // An integer in `radix`, or an error saying it does not fit.
    let int = |digits: &[u8], radix: u32| -> Result<Tok, ParamError> {
        match parse_int(digits, radix, negative) {
            Some(v) => Ok(Tok::Int(v)),
            None => syntax(
                loc,
                format!(
                    "integer `{text}` does not fit in 64 bits (expected {}..={})",
                    i64::MIN,
                    i64::MAX
                ),
            ),
        }
    };
    if is_digits(unsigned) {
        return int(unsigned, 10);
    }
    if let Some(hex) = unsigned.strip_prefix(b"0x") {
        if !hex.is_empty() && hex.iter().all(u8::is_ascii_hexdigit) {
            return int(hex, 16);
        }
    }
    if is_float(unsigned) {
        return match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Tok::Float(v)),
            _ => syntax(
                loc,
                format!(
                    "number `{text}` is out of range (expected a finite number of at most {:e})",
                    f64::MAX
                ),
            ),
        };
    }
    Ok(Tok::Str(text.into_owned()))
}

fn is_digits(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(u8::is_ascii_digit)
}

/// `[0-9]+\.[0-9]+(e[+-][0-9]+)?` (sign already stripped).
fn is_float(s: &[u8]) -> bool {
    let (mantissa, exponent) = match s.iter().position(|&b| b == b'e') {
        Some(i) => (s.get(..i).unwrap_or_default(), s.get(i + 1..)),
        None => (s, None),
    };
    let mantissa_ok = match mantissa.iter().position(|&b| b == b'.') {
        Some(i) => {
            is_digits(mantissa.get(..i).unwrap_or_default())
                && is_digits(mantissa.get(i + 1..).unwrap_or_default())
        }
        None => false,
    };
    let exponent_ok = match exponent {
        None => true,
        Some(e) => match e.split_first() {
            Some((b'+' | b'-', digits)) => is_digits(digits),
            _ => false,
        },
    };
    mantissa_ok && exponent_ok
}

/// Accumulate digits with overflow checks; negative values are built downwards so that
/// `i64::MIN` is representable.
fn parse_int(digits: &[u8], radix: u32, negative: bool) -> Option<i64> {
    let mut v: i64 = 0;
    for &b in digits {
        let d = i64::from(char::from(b).to_digit(radix)?);
        v = v.checked_mul(i64::from(radix))?;
        v = if negative {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

// ---------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------

struct Parser {
    /// The tokens still to read, last first (the next one is popped off the end).
    toks: Vec<Token>,
    /// Returned when peeking past the end; carries the end-of-file location.
    eof: Token,
    /// Current block/list nesting, bounded by `MAX_NESTING`.
    depth: usize,
    /// Every blockdef name seen so far (top level or nested): the first definition wins.
    defined: HashSet<String>,
    /// Names all `a .. b` ranges of the file have expanded to, bounded by `MAX_RANGE_LEN`.
    range_names: u64,
}

impl Parser {
    fn new(mut toks: Vec<Token>, eof: Token) -> Self {
        toks.reverse();
        Parser {
            toks,
            eof,
            depth: 0,
            defined: HashSet::new(),
            range_names: 0,
        }
    }

    fn peek_at(&self, n: usize) -> &Token {
        self.toks
            .len()
            .checked_sub(n.saturating_add(1))
            .and_then(|i| self.toks.get(i))
            .unwrap_or(&self.eof)
    }

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    /// Takes the next token (the parser never looks back).
    fn next(&mut self) -> Token {
        self.toks.pop().unwrap_or_else(|| self.eof.clone())
    }

    /// Consume a token equal to `want`, or fail with "expected X `context`, found Y".
    fn expect(&mut self, want: &Tok, context: &str) -> Result<Token, ParamError> {
        let t = self.next();
        if &t.tok == want {
            Ok(t)
        } else {
            syntax(
                &t.loc,
                format!(
                    "expected {} {context}, found {}",
                    describe(want),
                    describe(&t.tok)
                ),
            )
        }
    }

    /// Consume a string token, or fail with "expected WHAT, found Y".
    fn expect_str(&mut self, what: &str) -> Result<(String, Loc), ParamError> {
        let t = self.next();
        match t.tok {
            Tok::Str(s) => Ok((s, t.loc)),
            other => syntax(
                &t.loc,
                format!("expected {what}, found {}", describe(&other)),
            ),
        }
    }

    fn enter(&mut self, loc: &Loc) -> Result<(), ParamError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return syntax(loc, format!("nesting deeper than {MAX_NESTING} levels"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn parse_file(mut self) -> Result<ParamFile, ParamError> {
        let mut file = ParamFile::default();
        loop {
            match &self.peek().tok {
                Tok::Eof => {
                    file.index_types();
                    return Ok(file);
                }
                Tok::Instantiate => file.instantiations.push(self.parse_instantiate()?),
                Tok::Topology => {
                    self.next();
                    file.topologies.push(self.parse_toposp()?);
                }
                Tok::Str(_) => {
                    let (type_name, loc) = self.expect_str("block type")?;
                    let (name, _) =
                        self.expect_str(&format!("block name after type `{type_name}`"))?;
                    self.expect(&Tok::LBrace, &format!("after block name `{name}`"))?;
                    // Check before parsing the body so nested definitions can't shadow it.
                    let is_new = !self.defined.contains(&name);
                    let block = self.parse_block_body(type_name, Some(name), loc)?;
                    if is_new {
                        file.blocks.push(block);
                    }
                }
                other => {
                    let t = self.peek();
                    return syntax(
                        &t.loc,
                        format!(
                            "expected a block definition, `instantiate` or `topology`, found {}",
                            describe(other)
                        ),
                    );
                }
            }
        }
    }

    /// `{` has been consumed; parse `[ exps ] }`.
    fn parse_block_body(
        &mut self,
        type_name: String,
        name: Option<String>,
        loc: Loc,
    ) -> Result<Block, ParamError> {
        self.enter(&loc)?;
        if let Some(n) = &name {
            self.defined.insert(n.clone());
        }
        let mut params = Vec::new();
        let mut seen = HashSet::new();
        if self.peek().tok == Tok::RBrace {
            self.next();
        } else {
            loop {
                self.parse_exp(&mut params, &mut seen)?;
                let last = params.last().map(|p: &Param| p.name.as_str());
                let closed = self.separator(&Tok::RBrace, |found| {
                    format!(
                        "expected ',' or '}}' after value of parameter `{}`, found {found}",
                        last.unwrap_or_default()
                    )
                })?;
                if closed {
                    break;
                }
            }
        }
        self.leave();
        Ok(Block {
            type_name,
            name,
            params,
            loc,
        })
    }

    /// `pname = value` or `[names] = value`; appends one Param per name.
    fn parse_exp(
        &mut self,
        params: &mut Vec<Param>,
        seen: &mut HashSet<String>,
    ) -> Result<(), ParamError> {
        let names = match &self.peek().tok {
            Tok::LBracket => self.parse_name_list()?,
            Tok::Str(_) => vec![self.parse_pname()],
            other => {
                return syntax(
                    &self.peek().loc,
                    format!("expected parameter name, found {}", describe(other)),
                )
            }
        };
        // The names are joined only for a message.
        let shown = || {
            names
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if self.peek().tok != Tok::Eq {
            self.expect(&Tok::Eq, &format!("after parameter name `{}`", shown()))?;
        }
        self.next();
        let mut value = self.parse_value(|| format!("parameter `{}`", shown()))?;
        // The last name takes the value itself (one value is usually one name, and a
        // model's zone lists are large); the others get copies.
        let mut names = names.into_iter().peekable();
        while let Some((name, loc)) = names.next() {
            if !seen.insert(name.clone()) {
                return syntax(&loc, format!("duplicate parameter `{name}` in block"));
            }
            let value = match names.peek() {
                Some(_) => value.clone(),
                None => std::mem::replace(&mut value, Value::Int(0)),
            };
            params.push(Param { name, value, loc });
        }
        Ok(())
    }

    /// A parameter name: one or more string tokens joined by single spaces.
    fn parse_pname(&mut self) -> (String, Loc) {
        let loc = self.peek().loc.clone();
        let mut name = String::new();
        while let Tok::Str(_) = &self.peek().tok {
            if let Tok::Str(word) = self.next().tok {
                if !name.is_empty() {
                    name.push(' ');
                }
                name.push_str(&word);
            }
        }
        (name, loc)
    }

    /// `[a, b .. d] = value`: every list item must be a name.
    fn parse_name_list(&mut self) -> Result<Vec<(String, Loc)>, ParamError> {
        let items = self.parse_list()?;
        items
            .into_iter()
            .map(|item| match item.value {
                Value::Str(s) => Ok((s, item.loc)),
                _ => syntax(&item.loc, "expected a parameter name in name list"),
            })
            .collect()
    }

    /// A value; `context` names it in the message when there is none (built only then).
    fn parse_value(&mut self, context: impl FnOnce() -> String) -> Result<Value, ParamError> {
        match self.peek().tok {
            Tok::Int(v) => {
                self.next();
                Ok(Value::Int(v))
            }
            Tok::Float(v) => {
                self.next();
                Ok(Value::Float(v))
            }
            Tok::LBracket => Ok(Value::List(self.parse_list()?)),
            Tok::Str(_) => self.parse_str_value(),
            ref other => syntax(
                &self.peek().loc,
                format!(
                    "expected a value for {}, found {}",
                    context(),
                    describe(other)
                ),
            ),
        }
    }

    /// A value starting with a string (the next token): a plain string, `TYPE { }` or
    /// `TYPE NAME { }`.
    fn parse_str_value(&mut self) -> Result<Value, ParamError> {
        match (&self.peek_at(1).tok, &self.peek_at(2).tok) {
            (Tok::LBrace, _) => {
                let (first, loc) = self.expect_str("a value")?;
                self.next();
                Ok(Value::Block(self.parse_block_body(first, None, loc)?))
            }
            (Tok::Str(_), Tok::LBrace) => {
                let (first, loc) = self.expect_str("a value")?;
                let (name, _) = self.expect_str("a block name")?;
                self.next();
                Ok(Value::Block(self.parse_block_body(
                    first,
                    Some(name),
                    loc,
                )?))
            }
            (Tok::Str(name), Tok::LBracket) => {
                let t = self.peek();
                let first = match &t.tok {
                    Tok::Str(f) => f.as_str(),
                    _ => "",
                };
                syntax(
                    &t.loc,
                    format!("topology specification `{first} {name} [...]` is not supported as a parameter value"),
                )
            }
            _ => {
                let (first, _) = self.expect_str("a value")?;
                Ok(Value::Str(first))
            }
        }
    }

    /// What follows an item of a comma-separated list closed by `close`: true at the
    /// close, false after a comma; a trailing comma, or any other token (which
    /// `expected` describes, given the token found), is an error.
    fn separator(
        &mut self,
        close: &Tok,
        expected: impl FnOnce(String) -> String,
    ) -> Result<bool, ParamError> {
        let t = self.next();
        if &t.tok == close {
            return Ok(true);
        }
        if t.tok != Tok::Comma {
            return syntax(&t.loc, expected(describe(&t.tok)));
        }
        if &self.peek().tok == close {
            return syntax(
                &t.loc,
                format!("trailing comma before {} is not allowed", describe(close)),
            );
        }
        Ok(false)
    }

    /// `[ item, ... ]` where an item is a value or a range `a3 .. a6`.
    fn parse_list(&mut self) -> Result<Vec<Item>, ParamError> {
        let open = self.expect(&Tok::LBracket, "to start a list")?;
        self.enter(&open.loc)?;
        let mut items = Vec::new();
        if self.peek().tok == Tok::RBracket {
            self.next();
            self.leave();
            return Ok(items);
        }
        loop {
            self.parse_item(&mut items)?;
            if self.separator(&Tok::RBracket, |found| {
                format!("expected ',' or ']' in list, found {found}")
            })? {
                break;
            }
        }
        self.leave();
        Ok(items)
    }

    fn parse_item(&mut self, items: &mut Vec<Item>) -> Result<(), ParamError> {
        let loc = self.peek().loc.clone();
        if let (Tok::Str(_), Tok::DotDot) = (&self.peek().tok, &self.peek_at(1).tok) {
            let (start, _) = self.expect_str("a range start")?;
            self.next();
            let (end, _) = self.expect_str(&format!("end of range after `{start} ..`"))?;
            let names = expand_range(&start, &end, &loc)?;
            self.range_names += names.len() as u64;
            if self.range_names > MAX_RANGE_LEN {
                return syntax(
                    &loc,
                    format!(
                        "range `{start} .. {end}`: the file's ranges name more than {MAX_RANGE_LEN} in all"
                    ),
                );
            }
            for name in names {
                items.push(Item {
                    value: Value::Str(name),
                    loc: loc.clone(),
                });
            }
            return Ok(());
        }
        let value = self.parse_value(|| "list element".to_string())?;
        items.push(Item { value, loc });
        Ok(())
    }

    /// `instantiate [names] as SPEC`.
    fn parse_instantiate(&mut self) -> Result<Instantiation, ParamError> {
        let loc = self.next().loc;
        if self.peek().tok != Tok::LBracket {
            let t = self.peek();
            return syntax(
                &t.loc,
                format!(
                    "expected '[' after `instantiate`, found {}",
                    describe(&t.tok)
                ),
            );
        }
        let names = self
            .parse_list()?
            .into_iter()
            .map(|item| match item.value {
                Value::Str(s) => Ok(s),
                _ => syntax(&item.loc, "expected a component name in instantiate list"),
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.expect(&Tok::As, "after instantiate list")?;
        let (spec, _) = self.expect_str("block name after `as`")?;
        Ok(Instantiation { names, spec, loc })
    }

    /// `TYPE NAME [ toposp, ... ]` (the `topology` keyword is already consumed).
    fn parse_toposp(&mut self) -> Result<Topology, ParamError> {
        let (type_name, loc) = self.expect_str("component type in topology")?;
        let (name, _) = self.expect_str(&format!("component name after `{type_name}`"))?;
        self.expect(
            &Tok::LBracket,
            &format!("after topology component `{name}`"),
        )?;
        self.enter(&loc)?;
        let mut children = Vec::new();
        if self.peek().tok == Tok::RBracket {
            self.next();
        } else {
            loop {
                children.push(self.parse_toposp()?);
                if self.separator(&Tok::RBracket, |found| {
                    format!("expected ',' or ']' after topology component, found {found}")
                })? {
                    break;
                }
            }
        }
        self.leave();
        Ok(Topology {
            type_name,
            name,
            children,
            loc,
        })
    }
}

/// Split `disk12` into (`disk`, `12`): the suffix is everything after the last non-digit.
fn split_numeric_suffix(s: &str) -> (&str, &str) {
    let prefix_len = s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    s.split_at(prefix_len)
}

/// Expand `foo3 .. foo6` into `foo3, foo4, foo5, foo6`.
fn expand_range(start: &str, end: &str, loc: &Loc) -> Result<Vec<String>, ParamError> {
    let (p1, n1) = split_numeric_suffix(start);
    let (p2, n2) = split_numeric_suffix(end);
    if n1.is_empty() || n2.is_empty() {
        return syntax(
            loc,
            format!("range `{start} .. {end}`: both ends need a numeric suffix"),
        );
    }
    if p1 != p2 {
        return syntax(
            loc,
            format!("range `{start} .. {end}`: ends have different prefixes"),
        );
    }
    let (Ok(lo), Ok(hi)) = (n1.parse::<u64>(), n2.parse::<u64>()) else {
        return syntax(loc, format!("range `{start} .. {end}`: number too large"));
    };
    if lo > hi {
        return syntax(loc, format!("range `{start} .. {end}`: start is after end"));
    }
    if hi - lo >= MAX_RANGE_LEN {
        return syntax(
            loc,
            format!("range `{start} .. {end}`: more than {MAX_RANGE_LEN} names"),
        );
    }
    Ok((lo..=hi).map(|i| format!("{p1}{i}")).collect())
}

// ---------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A shipped data file: the project copy if present, else the shared one.
    fn data_file(dir: &str, name: &str) -> Option<PathBuf> {
        let local = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data")
            .join(dir)
            .join(name);
        if local.exists() {
            return Some(local);
        }
        let shared = Path::new("/work/shared/data").join(dir).join(name);
        shared.exists().then_some(shared)
    }

    fn lex(text: &str) -> Result<Vec<Tok>, ParamError> {
        let file = Arc::new(PathBuf::from("/nonexistent/t.parv"));
        let mut out = Vec::new();
        lex_into(text.as_bytes(), &file, 0, &mut Spliced::default(), &mut out)?;
        Ok(out.into_iter().map(|t| t.tok).collect())
    }

    fn parse(text: &str) -> Result<ParamFile, ParamError> {
        parse_str(text, Path::new("/nonexistent/t.parv"))
    }

    fn err_line(r: Result<ParamFile, ParamError>) -> (u32, String) {
        match r {
            Err(ParamError::Syntax { loc, msg }) => (loc.line, msg),
            other => panic!("expected syntax error, got {other:?}"),
        }
    }

    fn s(x: &str) -> Tok {
        Tok::Str(x.into())
    }

    #[test]
    fn a_file_of_too_many_tokens_is_refused_while_lexing() {
        // Two tokens per `1,`: one list item more than the limit allows.
        let text = format!("x = [{}1]", "1,".repeat(MAX_TOKENS / 2));
        let (line, msg) = err_line(parse(&text));
        assert_eq!(line, 1);
        assert!(msg.contains("tokens in all"), "{msg}");
    }

    /// A fresh scratch directory for tests that need real files.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spindle-param-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn lexer_numbers() {
        assert_eq!(lex("1.").unwrap(), vec![s("1.")]);
        assert_eq!(lex("1e5").unwrap(), vec![s("1e5")]);
        assert_eq!(lex("1.5e5").unwrap(), vec![s("1.5e5")]);
        assert_eq!(lex("1.5E+5").unwrap(), vec![s("1.5E+5")]);
        assert_eq!(lex(".5").unwrap(), vec![s(".5")]);
        assert_eq!(lex("1.5e+3").unwrap(), vec![Tok::Float(1500.0)]);
        assert_eq!(lex("-2.25e-2").unwrap(), vec![Tok::Float(-0.0225)]);
        assert_eq!(lex("-0x1F").unwrap(), vec![Tok::Int(-31)]);
        assert_eq!(lex("0x").unwrap(), vec![s("0x")]);
        assert_eq!(lex("0X1F").unwrap(), vec![s("0X1F")]);
        assert_eq!(lex("-42 +42").unwrap(), vec![Tok::Int(-42), s("+42")]);
        assert_eq!(
            lex("-9223372036854775808").unwrap(),
            vec![Tok::Int(i64::MIN)]
        );
        assert!(lex("9223372036854775808").is_err());
        assert!(lex("0x10000000000000000").is_err());
        assert!(lex("1.0e+999").is_err());
    }

    #[test]
    fn lexer_strings_comments_keywords() {
        assert_eq!(lex("abc#d").unwrap(), vec![s("abc#d")]);
        assert_eq!(lex("a # comment, { \n b").unwrap(), vec![s("a"), s("b")]);
        assert_eq!(lex("#x\r\n#y\rz").unwrap(), vec![s("z")]);
        assert_eq!(
            lex("sources as instantiate topology").unwrap(),
            vec![s("sources"), Tok::As, Tok::Instantiate, Tok::Topology]
        );
        assert_eq!(
            lex("a..b .. ..c").unwrap(),
            vec![s("a..b"), Tok::DotDot, s("..c")]
        );
        assert_eq!(
            lex("x=(in/blks);{}[]:?").unwrap(),
            vec![
                s("x"),
                Tok::Eq,
                s("(in/blks)"),
                Tok::Semi,
                Tok::LBrace,
                Tok::RBrace,
                Tok::LBracket,
                Tok::RBracket,
                Tok::Colon,
                Tok::Question
            ]
        );
    }

    #[test]
    fn line_numbers_count_cr_lf_and_crlf() {
        let (line, _) = err_line(parse("a b {\r\n\r\rx = 1 y"));
        assert_eq!(line, 4);
    }

    #[test]
    fn names_join_words_and_blocks_nest() {
        let f = parse(
            "disksim_disk D {\n Segment   size (in blks) = 5,\n Sched = disksim_ioqueue { p = 1.0 },\n L = [ 1, x, t { } ]\n}",
        )
        .unwrap();
        let d = f.block("D").unwrap();
        assert_eq!(d.type_name, "disksim_disk");
        assert_eq!(
            d.get("Segment size (in blks)").unwrap().value,
            Value::Int(5)
        );
        assert_eq!(d.get("Segment size (in blks)").unwrap().loc.line, 2);
        let Value::Block(q) = &d.get("Sched").unwrap().value else {
            panic!()
        };
        assert_eq!(q.name, None);
        assert_eq!(q.get("p").unwrap().value, Value::Float(1.0));
        let Value::List(l) = &d.get("L").unwrap().value else {
            panic!()
        };
        assert_eq!(l.len(), 3);
        assert_eq!(l[1].value, Value::Str("x".into()));
    }

    #[test]
    fn trailing_commas_are_errors_with_right_line() {
        let (line, msg) = err_line(parse("t B {\n a = 1,\n b = 2,\n}\n"));
        assert_eq!(line, 3);
        assert!(msg.contains("trailing comma"), "{msg}");
        let (line, _) = err_line(parse("t B {\n a = [1,\n 2,\n ]\n}"));
        assert_eq!(line, 3);
        let (line, _) = err_line(parse("topology a b [\n c d [],\n]"));
        assert_eq!(line, 2);
    }

    /// Each comma-separated construct names what a stray token follows.
    #[test]
    fn a_stray_token_after_an_item_is_named() {
        for (text, want) in [
            (
                "t B {\n a = 1\n b = 2\n}\n",
                "expected ',' or '}' after value of parameter `a`, found",
            ),
            ("t B {\n a = [1 2]\n}", "expected ',' or ']' in list, found"),
            (
                "topology a b [\n c d [] e f []\n]",
                "expected ',' or ']' after topology component, found",
            ),
            (
                "t B {\n a = [1,\n ]\n}",
                "trailing comma before ']' is not allowed",
            ),
            (
                "t B {\n a = 1,\n}",
                "trailing comma before '}' is not allowed",
            ),
        ] {
            let (_, msg) = err_line(parse(text));
            assert!(msg.contains(want), "{text:?}: {msg}");
        }
    }

    #[test]
    fn error_messages_say_expected_and_found() {
        let (line, msg) = err_line(parse("t B {\n Foo   bar }"));
        assert_eq!(line, 2);
        assert_eq!(
            msg,
            "expected '=' after parameter name `Foo bar`, found '}'"
        );
        let (line, msg) = err_line(parse("t B {\n a = 1\n"));
        assert_eq!(line, 2);
        assert!(msg.contains("end of input"), "{msg}");
        let err = parse("t B { a = }").unwrap_err().to_string();
        assert!(err.starts_with("/nonexistent/t.parv:1: "), "{err}");
    }

    #[test]
    fn duplicate_param_reports_second() {
        let (line, msg) = err_line(parse("t B {\n a = 1,\n a = 2\n}"));
        assert_eq!(line, 3);
        assert!(msg.contains("duplicate"), "{msg}");
    }

    #[test]
    fn first_definition_wins() {
        let f = parse("t A { x = 1 }\nu A { x = 2 }\nt C { }").unwrap();
        assert_eq!(f.blocks.len(), 2);
        assert_eq!(f.block("A").unwrap().type_name, "t");
    }

    #[test]
    fn ranges_expand() {
        let f =
            parse("instantiate [ disk0 .. disk2, x ] as D\nt B { devs = [ d8 .. d10 ] }").unwrap();
        assert_eq!(f.instantiations[0].names, ["disk0", "disk1", "disk2", "x"]);
        assert_eq!(f.instantiations[0].spec, "D");
        let Value::List(l) = &f.block("B").unwrap().get("devs").unwrap().value else {
            panic!()
        };
        let names: Vec<_> = l.iter().map(|i| i.value.clone()).collect();
        assert_eq!(
            names,
            ["d8", "d9", "d10"].map(|n| Value::Str(n.into())).to_vec()
        );
        assert!(parse("instantiate [ a1 .. b2 ] as D").is_err());
        assert!(parse("instantiate [ a3 .. a1 ] as D").is_err());
        assert!(parse("instantiate [ a .. a2 ] as D").is_err());
        assert!(parse("instantiate [ a0 .. a99999999999999999999 ] as D").is_err());
    }

    #[test]
    fn list_assigns_several_names() {
        let f = parse("t B { [ a, b ] = 3 }").unwrap();
        let b = f.block("B").unwrap();
        assert_eq!(b.get("a").unwrap().value, Value::Int(3));
        assert_eq!(b.get("b").unwrap().value, Value::Int(3));
    }

    #[test]
    fn inheritance_resolves_and_survives_cycles() {
        let f = parse(
            "disksim_disk A { x = 1, y = 2 }\nA B { y = 3, z = 4 }\nB C { w = 0 }\nC C2 { }\nZ Y { }\nY Z { a = 1 }",
        )
        .unwrap();
        let c = f.block("C").unwrap().resolved(&f);
        assert_eq!(c.type_name, "disksim_disk");
        assert_eq!(c.name.as_deref(), Some("C"));
        let got: Vec<_> = c
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.value.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("x", Value::Int(1)),
                ("y", Value::Int(3)),
                ("z", Value::Int(4)),
                ("w", Value::Int(0))
            ]
        );
        // A cycle (Y -> Z -> Y) terminates.
        let y = f.block("Y").unwrap().resolved(&f);
        assert_eq!(y.get("a").unwrap().value, Value::Int(1));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = format!("t B {{ a = {} }}", "[".repeat(100_000));
        assert!(parse(&text).is_err());
    }

    #[test]
    fn source_splices_relative_to_including_file() {
        let dir = scratch("source");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(
            dir.join("sub/inner.model"),
            "dm_disk M {\n n = 1,\n bad = }",
        )
        .unwrap();
        std::fs::write(dir.join("sub/ok.model"), "dm_disk M { n = 1 }").unwrap();
        std::fs::write(
            dir.join("sub/d.diskspecs"),
            "disksim_disk D { Model = source ok.model }",
        )
        .unwrap();
        let f = parse_str("source sub/d.diskspecs\n", &dir.join("top.parv")).unwrap();
        let d = f.block("D").unwrap();
        let Value::Block(m) = &d.get("Model").unwrap().value else {
            panic!()
        };
        assert_eq!(m.name.as_deref(), Some("M"));
        assert!(m.loc.file.ends_with("sub/ok.model"));
        // A nested blockdef also defines a type.
        assert_eq!(f.find_type("M").unwrap().type_name, "dm_disk");

        // Errors inside a sourced file name that file and line.
        let err = parse_str(
            "x D { Model = source sub/inner.model }",
            &dir.join("t.parv"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("inner.model:3:"), "{err}");

        // Missing file: reported at the directive.
        let (line, msg) = err_line(parse_str("\n\nsource nope.model", &dir.join("t.parv")));
        assert_eq!(line, 3);
        assert!(msg.contains("cannot read sourced file"), "{msg}");

        // Self-inclusion stops at the depth limit.
        std::fs::write(dir.join("loop.parv"), "source loop.parv").unwrap();
        let err = parse_file(&dir.join("loop.parv")).unwrap_err().to_string();
        assert!(err.contains("nested more than 32"), "{err}");

        // `source` with no file name.
        assert!(parse("source").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_top_file_is_io_error() {
        let r = parse_file(Path::new("/nonexistent/dir/x.parv"));
        assert!(matches!(r, Err(ParamError::Io { .. })));
    }

    #[test]
    fn real_parv_files_parse() {
        for name in [
            "atlas10k.parv",
            "cheetah9LP.parv",
            "hp_c2247a.parv",
            "ibm18es.parv",
        ] {
            let Some(path) = data_file("disksim", name) else {
                return;
            };
            let f = parse_file(&path).unwrap_or_else(|e| panic!("{e}"));
            assert!(f.block("Global").is_some(), "{name}");
            assert!(f.block("Stats").is_some(), "{name}");
            assert_eq!(f.topologies.len(), 1, "{name}");
            assert!(f.instantiations.len() >= 6, "{name}");
            let disk = f
                .blocks
                .iter()
                .find(|b| b.type_name == "disksim_disk")
                .unwrap();
            let Value::Block(model) = &disk.get("Model").unwrap().value else {
                panic!("{name}: Model is not a block")
            };
            assert_eq!(model.type_name, "dm_disk", "{name}");
        }
    }

    #[test]
    fn cheetah_model_has_11_zones() {
        let Some(path) = data_file("disksim", "cheetah9LP.parv") else {
            return;
        };
        let f = parse_file(&path).unwrap();
        let disk = f.block("SEAGATE_ST39102LW_validate").unwrap();
        assert_eq!(disk.type_name, "disksim_disk");
        let Value::Block(model) = &disk.get("Model").unwrap().value else {
            panic!()
        };
        assert_eq!(model.type_name, "dm_disk");
        assert_eq!(
            model.name.as_deref(),
            Some("SEAGATE_ST39102LW_validate_model")
        );
        assert!(model.loc.file.ends_with("cheetah9LP.model"));
        let Value::Block(layout) = &model.get("Layout Model").unwrap().value else {
            panic!()
        };
        assert_eq!(layout.type_name, "dm_layout_g1");
        let Value::List(zones) = &layout.get("Zones").unwrap().value else {
            panic!()
        };
        assert_eq!(zones.len(), 11);
        let Value::Block(z0) = &zones[0].value else {
            panic!()
        };
        assert_eq!(z0.get("Blocks per track").unwrap().value, Value::Int(254));
        assert_eq!(
            z0.get("Skew for track switch").unwrap().value,
            Value::Float(97.0)
        );

        // Topology chain driver0 -> bus0 -> ctlr0 -> bus1 -> disk0.
        let mut t = &f.topologies[0];
        let mut chain = vec![t.name.clone()];
        while let Some(c) = t.children.first() {
            chain.push(c.name.clone());
            t = c;
        }
        assert_eq!(chain, ["driver0", "bus0", "ctlr0", "bus1", "disk0"]);
        assert_eq!(t.type_name, "disksim_disk");
    }

    #[test]
    fn hplajw_parses_with_ranges() {
        let Some(path) = data_file("traces", "hplajw.parv") else {
            return;
        };
        let f = parse_file(&path).unwrap();
        let disks = f
            .instantiations
            .iter()
            .find(|i| i.spec == "HP_C2249A")
            .unwrap();
        assert_eq!(disks.names, ["disk0", "disk1"]);
        assert_eq!(f.topologies[0].children[0].children.len(), 2);
        let Value::List(devs) = &f.block("org0").unwrap().get("devices").unwrap().value else {
            panic!()
        };
        assert_eq!(devs.len(), 2);
    }

    const SOUP: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        "=",
        ";",
        ":",
        "?",
        "..",
        "as",
        "instantiate",
        "topology",
        "t",
        "B",
        "x y",
        "1",
        "-0x1F",
        "2.5",
        "1.",
        "a3",
        "a5",
        "#c\n",
        "\n",
        "source",
    ];

    proptest! {
        #[test]
        fn never_panics_on_text(text in "\\PC*") {
            let _ = parse(&text);
        }

        #[test]
        fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = parse_bytes(&bytes, Path::new("/nonexistent/t.parv"));
        }

        #[test]
        fn never_panics_on_token_soup(
            toks in proptest::collection::vec(proptest::sample::select(SOUP), 0..80)
        ) {
            let _ = parse(&toks.join(" "));
        }
    }
}
