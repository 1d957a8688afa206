//! PTX ISA 9.7.3 and 9.7.4: the instruction model, its text form and its validity rules.

pub mod approx;
pub mod arith;
pub mod bounds;
pub mod complete;
pub mod cvt;
pub mod eval;
pub mod guarantee;
pub mod instr;
pub mod minmax;
pub mod parse;
pub mod run;
pub mod sign;
pub mod testp;
pub mod validate;
pub mod value;

pub use eval::{eval, eval_traced, Context, EvalError, Note, Notes, Rule, Silent, Trace};
pub use instr::{Instr, Modifier, Modifiers, Opcode, TestpOp, Type};
pub use parse::{parse_instr, parse_statement, Literal, Operand, ParseError, Statement};
pub use validate::{catalog, catalog_of, validate, Checked, Invalid, PtxVersion, Target};
