//! Labels laid out so that none covers another: how wide a label is drawn, and the rows of a
//! band of a picture that labels are placed in, left to right.
//!
//! A page cannot ask the browser how wide a text is before it is drawn, and the page computes
//! nothing itself (the layout is the same in every browser, and without the script), so widths
//! are estimated from the font: every label is drawn in a monospace font, whose characters all
//! advance by the same share of its size.

/// How far a character of a monospace font advances, as a share of the font's size: 0.6 in
/// DejaVu Sans Mono, Liberation Mono, Menlo and Consolas; 0.64 covers a font a little wider,
/// and the ellipsis of a cut label if the font lacks it.
const ADVANCE: f64 = 0.64;
/// The least room between two labels of a row.
pub const GAP: f64 = 4.0;
/// The height of a row of labels of [`SMALL`] text: a line of a 9 px monospace font is about
/// 10.5 px from its ascent to its descent.
pub const ROW: f64 = 12.0;
/// The font size of labels in pictures (events, gaps, locks), in CSS pixels: page.css sets it.
pub const SMALL: f64 = 9.0;

/// How many character cells `s` takes: one per character of ASCII and per ellipsis (the marks
/// the pictures write), two per other character, which a monospace font may lack and a
/// fallback font draws up to an em wide (a CJK character, a symbol).
pub fn cells(s: &str) -> usize {
    s.chars()
        .map(|c| {
            if c.is_ascii() || c == '…' || c == '⋯' {
                1
            } else {
                2
            }
        })
        .sum()
}

/// The width `s` takes in a monospace font of `font` pixels, at most.
pub fn width(s: &str, font: f64) -> f64 {
    cells(s) as f64 * ADVANCE * font
}

/// How many character cells fit in `room` pixels of a monospace font of `font` pixels.
pub fn cells_in(room: f64, font: f64) -> usize {
    (room / (ADVANCE * font)).floor().max(0.0) as usize
}

/// `s`, cut to at most `n` cells with an ellipsis; empty when not even the ellipsis fits.
pub fn cut(s: &str, n: usize) -> String {
    if cells(s) <= n {
        return s.to_owned();
    }
    if n == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = cells(c.encode_utf8(&mut [0; 4]));
        if used + w > n - 1 {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// `s`, cut to at most `n` cells by an ellipsis in its middle: names that differ only at
/// their end (`worker-pool-1`, `worker-pool-2`) stay apart.
pub fn cut_middle(s: &str, n: usize) -> String {
    if cells(s) <= n {
        return s.to_owned();
    }
    if n == 0 {
        return String::new();
    }
    let chars: Vec<char> = s.chars().collect();
    let cell = |c: char| cells(c.encode_utf8(&mut [0; 4]));
    // The end gets the smaller half of the room the ellipsis leaves.
    let room = n - 1;
    let (mut tail, mut tail_cells) = (chars.len(), 0);
    while tail > 0 && tail_cells + cell(chars[tail - 1]) <= room / 2 {
        tail -= 1;
        tail_cells += cell(chars[tail]);
    }
    let (mut head, mut head_cells) = (0, 0);
    while head < tail && head_cells + cell(chars[head]) <= room - tail_cells {
        head_cells += cell(chars[head]);
        head += 1;
    }
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[tail..]);
    out
}

/// Where a label is to be drawn along its row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Anchor {
    /// Centred on this x (an event's label under its circle).
    Middle(f64),
    /// Starting at this x (a lock's name at the left of its span).
    Start(f64),
}

impl Anchor {
    fn left(self, width: f64) -> f64 {
        match self {
            Anchor::Middle(x) => x - width / 2.0,
            Anchor::Start(x) => x,
        }
    }
}

/// A label placed in a [`Band`]: its text, its left edge and width, and its row (0 is the
/// row next to the lane's line).
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub text: String,
    pub left: f64,
    pub width: f64,
    pub row: usize,
}

/// The rows of labels on one side of a lane. Each row keeps where its rightmost label ends;
/// a label goes into a row only to the right of that end (by [`GAP`]), so the labels of a
/// row never meet, in whatever order they are placed; rows never meet either, being
/// [`ROW`] apart.
#[derive(Debug, Default)]
pub struct Band {
    ends: Vec<f64>,
}

impl Band {
    /// How many rows the band's labels take.
    pub fn rows(&self) -> usize {
        self.ends.len()
    }

    /// Places a label in the first of the first `rows` rows where it fits, in the first of
    /// its `forms` (the whole text, then shorter ones) that fits in one; where none does, its
    /// last form in the first row it fits, a new row if need be. A form that is empty places
    /// nothing.
    pub fn place(&mut self, forms: &[String], anchor: Anchor, rows: usize) -> Option<Placed> {
        for form in forms {
            if form.is_empty() {
                return None;
            }
            let w = width(form, SMALL);
            let left = anchor.left(w);
            if let Some(row) = self.free_row(left, rows) {
                return Some(self.take(form, left, w, row));
            }
        }
        let form = forms.last()?;
        let w = width(form, SMALL);
        let left = anchor.left(w);
        let row = self.free_row(left, usize::MAX).unwrap_or(self.ends.len());
        Some(self.take(form, left, w, row))
    }

    fn free_row(&self, left: f64, rows: usize) -> Option<usize> {
        (0..(self.ends.len() + 1).min(rows))
            .find(|&r| self.ends.get(r).is_none_or(|&end| end + GAP <= left))
    }

    fn take(&mut self, form: &str, left: f64, width: f64, row: usize) -> Placed {
        if row == self.ends.len() {
            self.ends.push(left + width);
        } else {
            self.ends[row] = left + width;
        }
        Placed {
            text: form.to_owned(),
            left,
            width,
            row,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn cut_keeps_short_text_and_marks_what_it_cuts() {
        assert_eq!(cut("acq(L12)", 14), "acq(L12)");
        assert_eq!(cut("acq(accountsLock)", 8), "acq(acc…");
        assert_eq!(cells(&cut("線程線程線程", 7)), 7);
        assert_eq!(cut("線程", 1), "…");
        assert_eq!(cut("abc", 0), "");
        assert_eq!(cut_middle("worker-thread-pool-1", 14), "worker-…pool-1");
        assert_eq!(cut_middle("T1", 14), "T1");
        assert_eq!(cells(&cut_middle("線程線程線程線程", 9)), 9);
    }

    proptest! {
        /// A cut text fits, and keeps the text whole when it fits already.
        #[test]
        fn cuts_fit(s in "[a-z線…]{0,30}", n in 0usize..20) {
            for c in [cut(&s, n), cut_middle(&s, n)] {
                prop_assert!(cells(&c) <= n);
                if cells(&s) <= n {
                    prop_assert_eq!(&c, &s);
                }
            }
        }
    }

    proptest! {
        /// The oracle: every two labels placed, in whatever order and from whatever forms,
        /// are in different rows or apart by at least GAP; and each keeps its anchor.
        #[test]
        fn labels_of_a_band_never_meet(
            labels in proptest::collection::vec(
                (0.0f64..2000.0, any::<bool>(), proptest::collection::vec("[a-z線…]{0,20}", 1..3), 1usize..4),
                0..60,
            )
        ) {
            let mut band = Band::default();
            let mut placed = Vec::new();
            for (x, middle, forms, rows) in &labels {
                let anchor = if *middle { Anchor::Middle(*x) } else { Anchor::Start(*x) };
                if let Some(p) = band.place(forms, anchor, *rows) {
                    prop_assert!(forms.contains(&p.text));
                    prop_assert!((anchor.left(p.width) - p.left).abs() < 1e-9);
                    prop_assert!(p.row < *rows || Some(&p.text) == forms.last());
                    placed.push(p);
                }
            }
            for (i, a) in placed.iter().enumerate() {
                for b in &placed[i + 1..] {
                    let apart = a.left + a.width + GAP <= b.left + 1e-9
                        || b.left + b.width + GAP <= a.left + 1e-9;
                    prop_assert!(a.row != b.row || apart, "{a:?} meets {b:?}");
                }
            }
            prop_assert_eq!(band.rows(), placed.iter().map(|p| p.row + 1).max().unwrap_or(0));
        }
    }
}
