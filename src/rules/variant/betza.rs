//! Betza notation, in the dialect of XBoard 4.9.1, parsed into concrete move
//! paths (one path per direction, each a list of legs with board vectors).
//!
//! Supported: atoms `W F D A N C Z G H` and the compounds `K Q R B`; a doubled
//! atom or a range number (`0` = unlimited) for riders; absolute directions
//! `f b l r s v h`; modes `m c e` (move, capture, en-passant capture), `p`
//! inside multi-leg moves (`mp`: the square may be empty or occupied), `n`
//! (lame leaper), `i` (initial moves only), `y` (the following legs toggle
//! between leaper and slider), `a` (another leg follows, directions relative to
//! the previous step, `f` continuing straight; a 45-degree turn converts
//! orthogonal atoms into diagonal ones and back); castling `O2`/`O3`.
//!
//! Vectors are in White's orientation: `dy > 0` is forward, `dx > 0` is right.

use std::fmt;

/// The most legs a multi-leg move may have (three `a`). The generator tests
/// up to three intermediate squares of a move; more legs would go unchecked.
pub const MAX_LEGS: usize = 4;

/// How far (in files and in ranks) from its origin a multi-leg move may be
/// before its last leg slides on: every turning point, and the first square
/// of the last leg. The mailbox has this many sentinel files and ranks
/// around the board, so such a square is always inside it.
pub const MAX_BENT_REACH: i32 = 3;

/// What a leg may do on the square it reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Modes {
    pub quiet: bool,
    pub capture: bool,
    pub en_passant: bool,
    /// Non-final leg only: the square may be empty or occupied (`mp`).
    pub pass_any: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leg {
    pub dx: i8,
    pub dy: i8,
    /// Maximum number of steps; 0 means unlimited. Non-final legs are always 1.
    pub range: u8,
    pub modes: Modes,
}

/// One concrete way of moving (a direction of an atom, possibly bent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub legs: Vec<Leg>,
    /// Only from the initial region (the `i` modifier).
    pub initial: bool,
    /// Lame leaper (`n`): the squares between origin and target must be empty.
    pub lame: bool,
}

/// A parsed Betza string.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BetzaPiece {
    pub paths: Vec<Path>,
    /// Castling by this many squares (the `O` atom).
    pub castling: Option<u8>,
}

/// A parse error: 1-based character position in the string and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BetzaError {
    pub position: usize,
    pub message: String,
}

impl fmt::Display for BetzaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at character {}: {}", self.position, self.message)
    }
}

/// The eight unit directions, clockwise from straight forward.
const DIRS8: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Orthogonal,
    Diagonal,
    Oblique,
}

/// A basic atom: its canonical leap (x >= y >= 0) and range.
#[derive(Clone, Copy, Debug)]
struct Atom {
    x: i8,
    y: i8,
    range: u8,
}

impl Atom {
    fn shape(self) -> Shape {
        if self.y == 0 {
            Shape::Orthogonal
        } else if self.x == self.y {
            Shape::Diagonal
        } else {
            Shape::Oblique
        }
    }
    /// Length of a step along one of the eight unit directions.
    fn length(self) -> i8 {
        self.x
    }
    fn vectors(self) -> Vec<(i8, i8)> {
        let mut v: Vec<(i8, i8)> = Vec::new();
        for &(a, b) in &[(self.x, self.y), (self.y, self.x)] {
            for sa in [1, -1] {
                for sb in [1, -1] {
                    let p = (a * sa, b * sb);
                    if !v.contains(&p) {
                        v.push(p);
                    }
                }
            }
        }
        v
    }
}

fn leap(letter: char) -> Option<(i8, i8)> {
    Some(match letter {
        'W' => (1, 0),
        'F' => (1, 1),
        'D' => (2, 0),
        'N' => (2, 1),
        'A' => (2, 2),
        'H' => (3, 0),
        'C' => (3, 1),
        'Z' => (3, 2),
        'G' => (3, 3),
        _ => return None,
    })
}

/// A modifier letter with its 1-based position in the string.
#[derive(Clone, Copy)]
struct Mod {
    ch: char,
    pos: usize,
}

fn err<T>(position: usize, message: impl Into<String>) -> Result<T, BetzaError> {
    Err(BetzaError {
        position,
        message: message.into(),
    })
}

/// Parse a Betza string into move paths.
pub fn parse(text: &str) -> Result<BetzaPiece, BetzaError> {
    let chars: Vec<char> = text.chars().collect();
    let mut piece = BetzaPiece::default();
    if chars.is_empty() {
        return err(1, "empty move description");
    }
    let mut i = 0;
    while i < chars.len() {
        let mut mods: Vec<Mod> = Vec::new();
        while i < chars.len() && chars[i].is_ascii_lowercase() {
            mods.push(Mod {
                ch: chars[i],
                pos: i + 1,
            });
            i += 1;
        }
        if i >= chars.len() {
            let pos = mods.last().map_or(chars.len(), |m| m.pos);
            return err(pos, "modifiers without an atom at the end");
        }
        let letter = chars[i];
        let atom_pos = i + 1;
        i += 1;
        if !letter.is_ascii_uppercase() {
            return err(atom_pos, format!("unexpected character '{letter}'"));
        }
        // Doubled atom: rider.
        let mut doubled = false;
        if i < chars.len() && chars[i] == letter && leap(letter).is_some() {
            doubled = true;
            i += 1;
        }
        let digits_start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let number: Option<u32> = if i > digits_start {
            let s: String = chars[digits_start..i].iter().collect();
            match s.parse::<u32>() {
                Ok(n) if n <= 255 => Some(n),
                _ => return err(digits_start + 1, format!("range '{s}' is too large")),
            }
        } else {
            None
        };
        if doubled && number.is_some() {
            return err(digits_start + 1, "a doubled atom takes no range number");
        }
        if letter == 'O' {
            for m in &mods {
                if !matches!(m.ch, 'i' | 's') {
                    return err(
                        m.pos,
                        format!("modifier '{}' is not allowed on castling", m.ch),
                    );
                }
            }
            match number {
                Some(n) if n >= 1 => piece.castling = Some(n as u8),
                _ => return err(atom_pos, "castling atom O needs a distance such as O2"),
            }
            continue;
        }
        // Range of the atom: leaper 1, rider 0 (unlimited), or the number.
        let atoms: Vec<Atom> = match letter {
            'K' | 'Q' | 'R' | 'B' => {
                let default_range = if letter == 'K' { 1 } else { 0 };
                let range = number.map_or(default_range, |n| n as u8);
                let mut v = Vec::new();
                if letter != 'B' {
                    v.push(Atom { x: 1, y: 0, range });
                }
                if letter != 'R' {
                    v.push(Atom { x: 1, y: 1, range });
                }
                v
            }
            _ => match leap(letter) {
                Some((x, y)) => {
                    let range = if doubled {
                        0
                    } else {
                        number.map_or(1, |n| n as u8)
                    };
                    vec![Atom { x, y, range }]
                }
                None => return err(atom_pos, format!("unknown atom '{letter}'")),
            },
        };
        for atom in atoms {
            expand_component(atom, &mods, atom_pos, &mut piece.paths)?;
        }
    }
    // Remove duplicate paths (e.g. "WW" and "R" written together).
    let mut unique: Vec<Path> = Vec::new();
    for p in piece.paths.drain(..) {
        if !unique.contains(&p) {
            unique.push(p);
        }
    }
    piece.paths = unique;
    Ok(piece)
}

/// Per-leg modifiers, split at each `a`.
#[derive(Default)]
struct LegSpec {
    dirs: Vec<Mod>,
    modes: Vec<Mod>,
    toggle: bool,
    lame: bool,
}

/// What one leg does: its modes and its range (see [`Leg`]).
#[derive(Clone, Copy)]
struct LegKind {
    modes: Modes,
    range: u8,
}

/// The paths of one atom under its modifiers (`atom_pos`: the atom's
/// position in the string, for errors), appended to `out`.
fn expand_component(
    atom: Atom,
    mods: &[Mod],
    atom_pos: usize,
    out: &mut Vec<Path>,
) -> Result<(), BetzaError> {
    let (legs, initial) = split_legs(mods)?;
    if legs.len() > 1 && atom.shape() == Shape::Oblique {
        return err(
            atom_pos,
            "multi-leg moves of oblique atoms are not supported",
        );
    }
    let kinds = leg_kinds(atom, &legs, mods, atom_pos)?;
    let paths = leg_vectors(atom, &legs, &kinds)?;
    if legs.len() > 1 {
        check_reach(&paths, atom_pos)?;
    }
    let lame = legs.len() == 1 && legs[0].lame;
    out.extend(paths.into_iter().map(|legs| Path {
        legs,
        initial,
        lame,
    }));
    Ok(())
}

/// The modifiers of an atom split into legs at each `a`, and whether the
/// move is an initial one (`i`).
fn split_legs(mods: &[Mod]) -> Result<(Vec<LegSpec>, bool), BetzaError> {
    let mut legs = vec![LegSpec::default()];
    let mut initial = false;
    for &m in mods {
        let leg = legs.len() - 1;
        match m.ch {
            'a' => legs.push(LegSpec::default()),
            'f' | 'b' | 'l' | 'r' | 's' | 'v' | 'h' => legs[leg].dirs.push(m),
            'm' | 'c' | 'e' | 'p' => legs[leg].modes.push(m),
            'i' => initial = true,
            'y' => legs[leg].toggle = true,
            'n' => legs[leg].lame = true,
            'g' | 'd' | 't' | 'o' | 'j' | 'u' | 'x' | 'k' | 'q' | 'w' | 'z' => {
                return err(m.pos, format!("modifier '{}' is not supported", m.ch));
            }
            _ => return err(m.pos, format!("unknown modifier '{}'", m.ch)),
        }
        if legs.len() > MAX_LEGS {
            return err(m.pos, format!("a move has at most {MAX_LEGS} legs"));
        }
    }
    Ok((legs, initial))
}

/// The position of the first modifier that `wanted` picks, or `fallback`.
fn position_of(mods: &[Mod], fallback: usize, wanted: impl Fn(&Mod) -> bool) -> usize {
    mods.iter().find(|m| wanted(m)).map_or(fallback, |m| m.pos)
}

/// The modes and range of each leg: a `y` toggles the legs after it
/// between leaper and slider; only the last leg may slide.
fn leg_kinds(
    atom: Atom,
    legs: &[LegSpec],
    mods: &[Mod],
    atom_pos: usize,
) -> Result<Vec<LegKind>, BetzaError> {
    let n = legs.len();
    let mut kinds = Vec::with_capacity(n);
    let mut toggled = false;
    for (k, spec) in legs.iter().enumerate() {
        let final_leg = k + 1 == n;
        let modes = leg_modes(spec, final_leg, atom_pos)?;
        let base = atom.range;
        let range = if toggled {
            if base == 1 { 0 } else { 1 }
        } else {
            base
        };
        if !final_leg && range != 1 {
            return err(atom_pos, "a sliding leg can only be the last leg");
        }
        if spec.lame {
            check_lame(atom, n, range, position_of(mods, atom_pos, |m| m.ch == 'n'))?;
        }
        if spec.toggle {
            toggled = !toggled;
        }
        kinds.push(LegKind { modes, range });
    }
    Ok(kinds)
}

/// The modes of one leg from its `m c e p` modifiers: the last leg moves
/// and captures when none is given and may not hop; an earlier leg only
/// passes over an empty square (`p`: or over any).
fn leg_modes(spec: &LegSpec, final_leg: bool, atom_pos: usize) -> Result<Modes, BetzaError> {
    let mut md = Modes::default();
    let mut hop = false;
    for m in &spec.modes {
        match m.ch {
            'm' => md.quiet = true,
            'c' => md.capture = true,
            'e' => md.en_passant = true,
            _ => hop = true,
        }
    }
    let hop_pos = position_of(&spec.modes, atom_pos, |m| m.ch == 'p');
    if final_leg {
        if hop {
            return err(
                hop_pos,
                "hopping moves ('p' on the last leg) are not supported",
            );
        }
        if !md.quiet && !md.capture && !md.en_passant {
            md.quiet = true;
            md.capture = true;
        }
        if let Some(m) = spec.modes.iter().find(|_| spec.toggle) {
            return err(m.pos, "'y' needs a following leg");
        }
    } else {
        if md.capture || md.en_passant {
            let pos = position_of(&spec.modes, atom_pos, |m| m.ch != 'm');
            return err(pos, "capturing on a non-final leg is not supported");
        }
        if hop && !md.quiet {
            return err(hop_pos, "hopping over an occupied square is not supported");
        }
        md.quiet = true;
        md.pass_any = hop;
    }
    Ok(md)
}

/// Whether a lame leaper (`n`, at `pos`) of this atom, in a move of `n`
/// legs with this range, has one path to block.
fn check_lame(atom: Atom, n: usize, range: u8, pos: usize) -> Result<(), BetzaError> {
    if n > 1 {
        return err(pos, "'n' is not supported on multi-leg moves");
    }
    if range != 1 {
        return err(pos, "'n' is only supported on leapers");
    }
    if !(atom.shape() != Shape::Oblique || (atom.x == 2 && atom.y == 1)) {
        return err(pos, "'n' on this oblique atom has no unique path");
    }
    Ok(())
}

/// The legs of every path: the first leg's directions absolute, each later
/// leg's turned from the leg before it.
fn leg_vectors(
    atom: Atom,
    legs: &[LegSpec],
    kinds: &[LegKind],
) -> Result<Vec<Vec<Leg>>, BetzaError> {
    let leg = |(dx, dy): (i8, i8), kind: LegKind| Leg {
        dx,
        dy,
        range: kind.range,
        modes: kind.modes,
    };
    let mut paths: Vec<Vec<Leg>> = select_absolute(atom, &legs[0].dirs)?
        .into_iter()
        .map(|d| vec![leg(d, kinds[0])])
        .collect();
    for k in 1..legs.len() {
        let turns = select_relative(&legs[k].dirs)?;
        let mut next = Vec::new();
        for p in &paths {
            let prev = p[k - 1];
            let unit = (prev.dx.signum(), prev.dy.signum());
            let idx = DIRS8.iter().position(|&d| d == unit).unwrap_or(0);
            for &t in &turns {
                let (ux, uy) = DIRS8[(idx as i32 + t).rem_euclid(8) as usize];
                let len = atom.length();
                let mut q = p.clone();
                q.push(leg((ux * len, uy * len), kinds[k]));
                if !next.contains(&q) {
                    next.push(q);
                }
            }
        }
        paths = next;
    }
    Ok(paths)
}

/// Every leg of a multi-leg move ends within [`MAX_BENT_REACH`] of its
/// origin (of the last leg only its first step: a slide goes on from a
/// real square).
fn check_reach(paths: &[Vec<Leg>], atom_pos: usize) -> Result<(), BetzaError> {
    for p in paths {
        let (mut x, mut y) = (0i32, 0i32);
        for (k, leg) in p.iter().enumerate() {
            x += leg.dx as i32;
            y += leg.dy as i32;
            if x.abs() > MAX_BENT_REACH || y.abs() > MAX_BENT_REACH {
                return err(
                    atom_pos,
                    format!(
                        "leg {} of a multi-leg move ends more than {MAX_BENT_REACH} squares from its origin",
                        k + 1
                    ),
                );
            }
        }
    }
    Ok(())
}

/// Vectors of the atom selected by absolute direction modifiers.
fn select_absolute(atom: Atom, dirs: &[Mod]) -> Result<Vec<(i8, i8)>, BetzaError> {
    let all = atom.vectors();
    if dirs.is_empty() {
        return Ok(all);
    }
    let shape = atom.shape();
    let mut keep = vec![false; all.len()];
    let mut k = 0;
    while k < dirs.len() {
        let a = dirs[k].ch;
        let b = dirs.get(k + 1).map(|m| m.ch);
        // Predicate over (dx, dy).
        let pair: Option<Box<dyn Fn(i8, i8) -> bool>> = match (shape, a, b) {
            (Shape::Diagonal, 'f' | 'b', Some('l' | 'r'))
            | (Shape::Diagonal, 'l' | 'r', Some('f' | 'b')) => {
                let (v, h) = if a == 'f' || a == 'b' {
                    (a, b.unwrap_or('l'))
                } else {
                    (b.unwrap_or('f'), a)
                };
                let sy = if v == 'f' { 1 } else { -1 };
                let sx = if h == 'r' { 1 } else { -1 };
                Some(Box::new(move |dx, dy| {
                    dx.signum() == sx && dy.signum() == sy
                }))
            }
            (Shape::Oblique, 'f' | 'b' | 'l' | 'r', Some(c)) if "fblrsh".contains(c) => {
                let vertical = a == 'f' || a == 'b';
                let sign = if a == 'f' || a == 'r' { 1 } else { -1 };
                let major = move |dx: i8, dy: i8| {
                    if vertical {
                        dy.abs() > dx.abs() && dy.signum() == sign
                    } else {
                        dx.abs() > dy.abs() && dx.signum() == sign
                    }
                };
                let along = move |dx: i8, dy: i8| {
                    if vertical {
                        dy.signum() == sign
                    } else {
                        dx.signum() == sign
                    }
                };
                match c {
                    'h' => Some(Box::new(along)),
                    'f' | 'b' | 'l' | 'r' if c == a => Some(Box::new(major)),
                    's' if vertical => Some(Box::new(move |dx: i8, dy: i8| {
                        dy.signum() == sign && dx.abs() > dy.abs()
                    })),
                    'f' | 'b' if !vertical => {
                        let s2 = if c == 'f' { 1 } else { -1 };
                        Some(Box::new(move |dx: i8, dy: i8| {
                            major(dx, dy) && dy.signum() == s2
                        }))
                    }
                    'l' | 'r' if vertical => {
                        let s2 = if c == 'r' { 1 } else { -1 };
                        Some(Box::new(move |dx: i8, dy: i8| {
                            major(dx, dy) && dx.signum() == s2
                        }))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let pred: Box<dyn Fn(i8, i8) -> bool> = match pair {
            Some(p) => {
                k += 2;
                p
            }
            None => {
                k += 1;
                match (shape, a) {
                    (_, 'f') => Box::new(|_, dy| dy > 0),
                    (_, 'b') => Box::new(|_, dy| dy < 0),
                    (_, 'l') => Box::new(|dx, _| dx < 0),
                    (_, 'r') => Box::new(|dx, _| dx > 0),
                    (Shape::Oblique, 'v') => Box::new(|dx: i8, dy: i8| dy.abs() > dx.abs()),
                    (Shape::Oblique, 's') => Box::new(|dx: i8, dy: i8| dx.abs() > dy.abs()),
                    (Shape::Orthogonal, 'v') => Box::new(|_, dy| dy != 0),
                    (Shape::Orthogonal, 's') => Box::new(|dx, _| dx != 0),
                    (Shape::Diagonal, 'v' | 's') => Box::new(|_, _| true),
                    _ => {
                        return err(
                            dirs[k - 1].pos,
                            format!("direction '{a}' cannot be used here"),
                        );
                    }
                }
            }
        };
        for (i, &(dx, dy)) in all.iter().enumerate() {
            if pred(dx, dy) {
                keep[i] = true;
            }
        }
    }
    Ok(all
        .into_iter()
        .zip(keep)
        .filter_map(|(v, k)| if k { Some(v) } else { None })
        .collect())
}

/// Turns (in 45-degree steps, clockwise positive) selected by relative
/// direction modifiers on a continuation leg.
fn select_relative(dirs: &[Mod]) -> Result<Vec<i32>, BetzaError> {
    if dirs.is_empty() {
        return Ok((0..8).collect());
    }
    let mut turns: Vec<i32> = Vec::new();
    let mut k = 0;
    while k < dirs.len() {
        let a = dirs[k].ch;
        let b = dirs.get(k + 1).map(|m| m.ch);
        let pair: Option<Vec<i32>> = match (a, b) {
            ('f', Some('l')) | ('l', Some('f')) => Some(vec![-1]),
            ('f', Some('r')) | ('r', Some('f')) => Some(vec![1]),
            ('b', Some('l')) | ('l', Some('b')) => Some(vec![-3]),
            ('b', Some('r')) | ('r', Some('b')) => Some(vec![3]),
            ('f', Some('s')) => Some(vec![-1, 1]),
            ('b', Some('s')) => Some(vec![-3, 3]),
            _ => None,
        };
        let sel = match pair {
            Some(p) => {
                k += 2;
                p
            }
            None => {
                k += 1;
                match a {
                    'f' => vec![0],
                    'b' => vec![4],
                    'l' => vec![-2],
                    'r' => vec![2],
                    's' => vec![-2, 2],
                    'v' => vec![0, 4],
                    _ => {
                        return err(
                            dirs[k - 1].pos,
                            format!("direction '{a}' cannot be used here"),
                        );
                    }
                }
            }
        };
        for t in sel {
            if !turns.contains(&t) {
                turns.push(t);
            }
        }
    }
    Ok(turns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(s: &str) -> Vec<(i8, i8, u8)> {
        let p = parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        let mut v: Vec<(i8, i8, u8)> = p
            .paths
            .iter()
            .map(|p| {
                let l = p.legs.last().map_or((0, 0, 0), |l| (l.dx, l.dy, l.range));
                let (sx, sy) = p.legs[..p.legs.len() - 1]
                    .iter()
                    .fold((0, 0), |a, l| (a.0 + l.dx, a.1 + l.dy));
                (sx + l.0, sy + l.1, l.2)
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn knight_and_king() {
        assert_eq!(parse("N").map(|p| p.paths.len()), Ok(8));
        assert_eq!(parse("K").map(|p| p.paths.len()), Ok(8));
        assert_eq!(parse("Q").map(|p| p.paths.len()), Ok(8));
        assert_eq!(parse("NN").map(|p| p.paths[0].legs[0].range), Ok(0));
        assert_eq!(parse("D0").map(|p| p.paths[0].legs[0].range), Ok(0));
        assert_eq!(parse("R4").map(|p| p.paths[0].legs[0].range), Ok(4));
    }

    #[test]
    fn pawn_directions() {
        let p = parse("fmWfcFifmnD").unwrap_or_else(|e| panic!("pawn: {e:?}"));
        assert_eq!(p.paths.len(), 4);
        let quiet: Vec<_> = p.paths.iter().filter(|p| p.legs[0].modes.quiet).collect();
        assert_eq!(quiet.len(), 2);
        assert!(
            p.paths
                .iter()
                .any(|p| p.initial && p.lame && p.legs[0].dy == 2)
        );
        assert!(p.paths.iter().all(|p| p.legs[0].dy > 0));
    }

    #[test]
    fn brute_moves_back_and_diagonal() {
        let t = targets("mFmbW");
        assert_eq!(
            t,
            vec![(-1, -1, 1), (-1, 1, 1), (0, -1, 1), (1, -1, 1), (1, 1, 1)]
        );
    }

    #[test]
    fn acromantula_bent_slider() {
        let p = parse("WyafsW").unwrap_or_else(|e| panic!("acromantula: {e:?}"));
        let bent: Vec<_> = p.paths.iter().filter(|p| p.legs.len() == 2).collect();
        assert_eq!(bent.len(), 8);
        for b in bent {
            assert!(b.legs[0].modes.quiet && !b.legs[0].modes.capture);
            assert_eq!(b.legs[1].range, 0);
            assert_eq!(b.legs[1].dx.abs(), 1);
            assert_eq!(b.legs[1].dy.abs(), 1);
            // Turned 45 degrees away from the first step: never back toward the origin.
            let (a, c) = (b.legs[0], b.legs[1]);
            assert!(a.dx * c.dx + a.dy * c.dy > 0);
        }
    }

    #[test]
    fn cobra_lame_camel() {
        let t = targets("NmpafsafF");
        let camel: Vec<_> = t.iter().filter(|v| v.0.abs() + v.1.abs() == 4).collect();
        assert_eq!(camel.len(), 8);
        let p = parse("mpafsafF").unwrap_or_else(|e| panic!("camel: {e:?}"));
        assert!(
            p.paths
                .iter()
                .all(|p| p.legs[0].modes.pass_any && !p.legs[1].modes.pass_any)
        );
    }

    #[test]
    fn castling_atom() {
        let p = parse("KisO2").unwrap_or_else(|e| panic!("king: {e:?}"));
        assert_eq!(p.castling, Some(2));
        assert_eq!(p.paths.len(), 8);
    }

    /// Every Betza string of the XBoard piece commands in the project's
    /// XBoard notes parses, with the expected number of distinct moves.
    #[test]
    fn xboard_strings_parse() {
        let cases = [
            ("K", 8),
            ("NB", 12),
            ("NR", 12),
            ("NK", 16),
            ("BR", 8),
            ("BK", 12),
            ("RK", 12),
            ("NBK", 20),
            ("NBR", 16),
            ("NRK", 20),
            ("BRK", 16),
            ("FA", 8),
            ("WA", 8),
            ("AG", 8),
            ("WN", 12),
            ("NmpafsafF", 16),
            ("WyafsW", 12),
            ("KisO2", 8),
            ("BD0", 8),
            ("mFmbW", 5),
            ("fmWfcFifmnD", 4),
            ("fWfFifmnD", 4),
            ("NfmWfceF", 11),
            ("NK", 16),
            ("BD", 8),
            ("RA", 8),
            ("QAD", 16),
            ("KisO3", 8),
        ];
        for (s, n) in cases {
            let p = parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(p.paths.len(), n, "{s}");
        }
    }

    #[test]
    fn errors_name_the_position() {
        assert_eq!(parse("NX").map_err(|e| e.position), Err(2));
        assert_eq!(parse("fq").map_err(|e| e.position), Err(2));
        assert_eq!(parse("Wf").map_err(|e| e.position), Err(2));
        assert!(parse("").is_err());
        assert_eq!(parse("pR").map_err(|e| e.position), Err(1));
        assert_eq!(parse("gQ").map_err(|e| e.position), Err(1));
        assert!(parse("O").is_err());
        assert!(parse("N999").is_err());
        assert!(parse("nC").is_err());
    }
}
