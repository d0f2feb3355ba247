//! How values passed to and returned from traced collections appear in a trace. Shared by the
//! recording and the plain builds, so that a program's `ToValue` impls compile in both.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

/// A value passed to or returned from a traced collection, as the trace will hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceValue<'a> {
    Int(i64),
    Nil,
    /// A bare word such as `true`.
    Sym(Cow<'a, str>),
    /// A string.
    Str(Cow<'a, str>),
}

impl TraceValue<'_> {
    /// The same value, owning its text.
    pub fn into_owned(self) -> TraceValue<'static> {
        match self {
            TraceValue::Int(i) => TraceValue::Int(i),
            TraceValue::Nil => TraceValue::Nil,
            TraceValue::Sym(s) => TraceValue::Sym(Cow::Owned(s.into_owned())),
            TraceValue::Str(s) => TraceValue::Str(Cow::Owned(s.into_owned())),
        }
    }
}

/// Keys, values and elements of [`crate::Map`] and [`crate::Set`] say how the trace shows
/// them. Implement it for your own types, e.g. as an id: `TraceValue::Int(self.id)`.
pub trait ToValue {
    fn to_value(&self) -> TraceValue<'_>;
}

macro_rules! int_values {
    ($($t:ty),*) => {$(
        impl ToValue for $t {
            #[inline]
            fn to_value(&self) -> TraceValue<'_> {
                // Values beyond i64 wrap: the trace only needs equal values to stay equal.
                TraceValue::Int(*self as i64)
            }
        }
    )*};
}
int_values!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl ToValue for bool {
    fn to_value(&self) -> TraceValue<'_> {
        TraceValue::Sym(Cow::Borrowed(if *self { "true" } else { "false" }))
    }
}

impl ToValue for str {
    fn to_value(&self) -> TraceValue<'_> {
        TraceValue::Str(Cow::Borrowed(self))
    }
}

impl ToValue for String {
    fn to_value(&self) -> TraceValue<'_> {
        TraceValue::Str(Cow::Borrowed(self))
    }
}

impl ToValue for char {
    fn to_value(&self) -> TraceValue<'_> {
        TraceValue::Str(Cow::Owned(self.to_string()))
    }
}

impl ToValue for () {
    fn to_value(&self) -> TraceValue<'_> {
        TraceValue::Nil
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> TraceValue<'_> {
        match self {
            Some(v) => v.to_value(),
            None => TraceValue::Nil,
        }
    }
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> TraceValue<'_> {
        (**self).to_value()
    }
}

impl<T: ToValue + ?Sized> ToValue for Box<T> {
    fn to_value(&self) -> TraceValue<'_> {
        (**self).to_value()
    }
}

impl<T: ToValue + ?Sized> ToValue for Arc<T> {
    fn to_value(&self) -> TraceValue<'_> {
        (**self).to_value()
    }
}

impl<T: ToValue + ?Sized> ToValue for Rc<T> {
    fn to_value(&self) -> TraceValue<'_> {
        (**self).to_value()
    }
}
