"""An example Seasonings plugin: slugs, exact sums, and dynamic values."""

import re

from seasonings import UNKNOWN, Plugin, PluginError, dynamic, is_unknown, number, read_dynamic, to_number

plugin = Plugin("slugs", "1.2.0")


@plugin.function(
    parameters=[
        {"name": "text", "type": "string"},
        # An unknown separator reaches us (the result is then unknown too).
        {"name": "sep", "type": "string", "allow_unknown_values": True},
    ],
    return_type="string",
    summary="Lower-case words joined by a separator",
)
def slug(text, sep):
    if is_unknown(sep):
        return UNKNOWN
    if len(sep) != 1:
        raise PluginError("Invalid separator", "the separator must be one character", function_argument=1)
    plugin.log("info", "made slug", input=text)
    return sep.join(re.findall(r"[a-z0-9]+", text.lower()))


@plugin.function(
    parameters=[],
    variadic={"name": "numbers", "type": "number"},
    return_type="number",
    summary="The exact sum of numbers (30-digit integers stay exact)",
    name="sum",
)
def sum_exact(*numbers):
    return to_number(sum((number(n) for n in numbers), 0))


@plugin.function(
    parameters=[{"name": "value", "type": "dynamic", "is_nullable": True}],
    return_type="dynamic",
    summary="The value wrapped in an object {value = ...}, of any type",
)
def wrap(value):
    if value is None:
        return None
    ty, inner = read_dynamic(value)
    return dynamic(["object", {"value": ty}], {"value": inner})


if __name__ == "__main__":
    plugin.run()
