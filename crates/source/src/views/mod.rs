//! Views of a program in MoTH's small imperative language (Fig. 3 of the paper): [`lang`] reads
//! it, [`symbolic`] runs it symbolically by the rules of Fig. 4 into a
//! [`Knowledge`](hindsight_views::Knowledge) for the sensors of `hindsight-views`.

pub mod lang;
pub mod symbolic;
