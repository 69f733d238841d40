//! The Rust SDK's `slugs` plugin: slugs, exact sums and dynamic values,
//! as examples/seasonings/python/slugs.py.

use bigdecimal::BigDecimal;
use ctywire_seasonings::plugin::{
    async_trait, log, Error, Function, Model, Number, Plugin, Type, Unknowable, Value,
};
use seasonings_plugin_example::slugify;
use serde::{Deserialize, Serialize};

/// Lower-case words joined by a separator
#[derive(Model, Serialize, Deserialize)]
struct SlugArgs {
    text: String,
    /// An unknown separator reaches the function (the result is then unknown too).
    sep: Unknowable<String>,
}

struct Slug;

#[async_trait]
impl Function for Slug {
    type Args = SlugArgs;
    type Output = Unknowable<String>;
    const ALLOW_UNKNOWN_VALUES: &'static [&'static str] = &["sep"];

    async fn call(&self, args: SlugArgs) -> Result<Unknowable<String>, Error> {
        let Unknowable::Known(sep) = args.sep else {
            return Ok(Unknowable::unknown());
        };
        if sep.chars().count() != 1 {
            return Err(Error::new("Invalid separator")
                .detail("the separator must be one character")
                .argument(1));
        }
        log::info!(input = args.text.as_str(); "made slug");
        Ok(Unknowable::Known(slugify(&args.text, &sep)))
    }
}

/// The exact sum of numbers (30-digit integers stay exact)
#[derive(Model, Serialize, Deserialize)]
struct SumArgs {
    numbers: Vec<Number>,
}

struct Sum;

#[async_trait]
impl Function for Sum {
    type Args = SumArgs;
    type Output = Number;
    const VARIADIC: Option<&'static str> = Some("numbers");

    async fn call(&self, args: SumArgs) -> Result<Number, Error> {
        let mut sum = BigDecimal::from(0);
        for (i, n) in args.numbers.iter().enumerate() {
            let n: BigDecimal = n.to_string().parse().map_err(|e| {
                Error::new("Not a finite number")
                    .detail(format!("{n}: {e}"))
                    .argument(i as u64)
            })?;
            sum += n;
        }
        Number::parse(&sum.normalized().to_plain_string())
            .map_err(|e| Error::new("The sum is not a number").detail(e.to_string()))
    }
}

/// The value wrapped in an object {value = ...}, of any type
#[derive(Model, Serialize, Deserialize)]
struct WrapArgs {
    #[model(optional)]
    value: Value,
}

struct Wrap;

#[async_trait]
impl Function for Wrap {
    type Args = WrapArgs;
    type Output = Value;

    async fn call(&self, args: WrapArgs) -> Result<Value, Error> {
        if args.value.is_null() {
            return Ok(Value::null(Type::Dynamic));
        }
        Ok(Value::object([("value", args.value)]))
    }
}

fn main() -> std::process::ExitCode {
    Plugin::new("slugs", "1.2.0")
        .function("slug", Slug)
        .function("sum", Sum)
        .function("wrap", Wrap)
        .serve()
}
