#!/usr/bin/env python3
"""Tests of scripts/check-docs.py: it finds what it claims to find, so a
green link check means something. Run: python3 scripts/check_docs_test.py"""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_docs", os.path.join(HERE, "check-docs.py"))
check_docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_docs)


class Anchors(unittest.TestCase):
    def test_headings_get_githubs_anchors(self):
        cases = {
            "Blocking I/O": "blocking-io",
            "The bridge runtime (`ctywire-bridge`)": "the-bridge-runtime-ctywire-bridge",
            "Protocol 6.9–6.10 (Terraform 1.12–1.15)": "protocol-69610-terraform-112115",
            "Testing with `testing::Harness`": "testing-with-testingharness",
            "Typed values (feature `serde`)": "typed-values-feature-serde",
            "A [linked](x.md) heading": "a-linked-heading",
        }
        for heading, anchor in cases.items():
            self.assertEqual(check_docs.github_anchor(heading), anchor, heading)


class Links(unittest.TestCase):
    def setUp(self):
        # Inside the repository, so that relative links resolve as in a real file.
        os.makedirs(os.path.join(check_docs.ROOT, "target"), exist_ok=True)
        self.dir = tempfile.TemporaryDirectory(dir=os.path.join(check_docs.ROOT, "target"))
        self.addCleanup(self.dir.cleanup)

    def problems(self, text):
        path = os.path.join(self.dir.name, "page.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        with open(os.path.join(self.dir.name, "other.md"), "w", encoding="utf-8") as f:
            f.write("# Other\n## Same\n## Same\n")
        return check_docs.check_file(os.path.relpath(path, check_docs.ROOT))

    def test_links_that_resolve_pass(self):
        text = (
            "# Page\n## Blocking I/O\n"
            "[a](other.md) [b](other.md#same) [c](other.md#same-1) [d](#blocking-io) "
            "[e](https://example.com/x.md) ![f](other.md)\n[g]: other.md#other\n"
        )
        self.assertEqual(self.problems(text), [])

    def test_an_html_anchor_is_an_anchor(self):
        text = '# Page\n[a](#nestedblock--rule) [b](#nope)\n\n<a id="nestedblock--rule"></a>\n### Nested\n'
        (problem,) = self.problems(text)
        self.assertIn("#nope: no heading with the anchor #nope", problem)

    def test_a_missing_file_is_named_with_its_line(self):
        (problem,) = self.problems("# Page\n\nsee [the guide](nope.md)\n")
        self.assertRegex(problem, r"page\.md:3: nope\.md: no such file$")

    def test_a_missing_anchor_is_named_in_this_file_and_another(self):
        problems = self.problems("# Page\n[a](#nope) [b](other.md#same-2)\n")
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("#nope: no heading with the anchor #nope", problems[0])
        self.assertIn("other.md#same-2: no heading with the anchor #same-2", problems[1])

    def test_a_missing_reference_definition_target_is_found(self):
        (problem,) = self.problems("# Page\n[label]: missing.md\n")
        self.assertIn("missing.md: no such file", problem)

    def test_a_link_out_of_the_repository_is_refused_even_when_the_file_exists(self):
        depth = os.path.relpath(check_docs.ROOT, self.dir.name).count(os.sep) + 1
        outside = "../" * (depth + 1) + "etc/hostname"
        (problem,) = self.problems(f"# Page\n[shared]({outside})\n")
        self.assertIn("outside the repository", problem)

    def test_links_in_code_are_not_links(self):
        text = "# Page\n`[a](nope.md)`\n```md\n[b](nope.md)\n```\n~~~\n[c](nope.md)\n~~~\n"
        self.assertEqual(self.problems(text), [])


if __name__ == "__main__":
    unittest.main()
