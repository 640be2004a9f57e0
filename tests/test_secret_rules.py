"""The secret rules on corpora: recall on planted and on realistic credentials, false alarms on benign text.

- planted: one string in the shape of every rule (tests/data/planted-secrets.json, drawn from each rule's own
  pattern by scripts/planted_secrets.py);
- realistic: the shapes people paste into a conversation, configuration files above all (REALISTIC below); every
  value is made up;
- benign: text that looks like a secret and is not (BENIGN below), and every text of the demo runs and of the real
  fixtures (model outputs, Inspect logs).

The rules are our own (site_src/secretrules.py) and gitleaks' default rule set at a pinned release
(site_src/secret_rules/gitleaks.json, MIT licence beside it; scripts/gitleaks_rules.py regenerates it). Each test
prints what it measured; `pytest -s tests/test_secret_rules.py` shows it.
"""

from __future__ import annotations

import json
import zipfile

import pytest
from helpers import ROOT

from site_src.secretrules import _gitleaks, _kept, _rules, entropy, find, masked
from site_src.systems.inspect_log.logfile import member_bytes

PLANTED = json.loads((ROOT / "tests/data/planted-secrets.json").read_text(encoding="utf-8"))

B64 = "dXNlcm5hbWU6UzNjcjN0UGFzcw=="  # made-up user:password, base64
REALISTIC = {
    ".netrc": "machine api.example.com\n  login deploy\n  password Pl4nt3d-n3trc",
    ".netrc on one line": "machine github.com login octo password gH7kLm2Qp9",
    ".pypirc password": "[pypi]\nusername = __token__\npassword = Xy7pQ2mN9vB4",
    ".pypirc token": "[pypi]\npassword = pypi-AgEIcHlwaS5vcmc" + "Q2xhbnRlZFRva2VuVmFsdWUx" * 3,
    ".npmrc _auth": f"registry=https://registry.example.com/\n_auth={B64}",
    ".npmrc _authToken": "//registry.npmjs.org/:_authToken=npm_" + "Pl4nt3dT0k3nV4lu3xYz" + "AbCdEfGhIjKlMnOp",
    ".npmrc uuid token": "//npm.example.com/:_authToken=1f2e3d4c-5b6a-7988-a7b6-c5d4e3f2a1b0",
    "docker config.json": '{"auths": {"https://index.docker.io/v1/": {"auth": "' + B64 + '"}}}',
    "Authorization: Basic": f"curl -H 'Authorization: Basic {B64}' https://api.example.com",
    "kubeconfig client-key-data": "users:\n- name: admin\n  user:\n    client-key-data: "
    + "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB",
    "kubeconfig token": "    token: eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0.c2lnbmF0dXJlMTIz",
    "redis URL with empty user": "REDIS_URL=redis://:Pl4nt3dR3dis@cache.internal:6379/0",
    "amqp URL": "amqp://guest:Gu3stPl4nt3d@rabbit.internal:5672/vhost",
    "mongodb+srv URL": "mongodb+srv://app:M0ng0Pl4nt3d@cluster0.abcde.mongodb.net/db",
    "mssql connection string": "Server=tcp:db.example.com,1433;Database=app;User ID=app;Password=Sq1Pl4nt3d!;",
    "postgres URL": "postgresql://app:PgPl4nt3d99@db.internal:5432/app",
    "Azure storage AccountKey": "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
    + "Pl4nt3dAzureStorageKeyValue0123456789kQ7vR2xW9mZ4bN8cT1yL6hJ3fD5gS0aP7eU2iO9wE4rT6yU1iO3pA5sD=="
    + ";EndpointSuffix=core.windows.net",
    "SendGrid": "SENDGRID_API_KEY=SG.Pl4nt3dSendGridKey012.Pl4nt3dSendGridSecretValue0123456789abcdefgh",
    "Twilio API key": "TWILIO_API_KEY=SK0123456789abcdef0123456789abcdef",
    "Twilio account SID": "account_sid = 'AC0123456789abcdef0123456789abcdef'",
    "Slack app-level token": "SLACK_APP_TOKEN=xapp-1-A0PLANTED1-1234567890123-" + "0123456789abcdef" * 4,
    "Stripe webhook secret": "STRIPE_WEBHOOK_SECRET=whsec_Pl4nt3dWebhookSecretValue0123",
    "short *_PASSWORD": "DB_PASSWORD=hunter2x",
    "short *_TOKEN": "CI_TOKEN=9f8e7d6c5b4a",
    "YAML secret:": "database:\n  secret: s3cr3tV4lue!\n",
    "YAML password:": "smtp:\n  password: M4ilP4ss99\n",
    "quoted JSON password": '{"user": "app", "password": "Js0nP4ss77"}',
    "GitHub PAT": "export GITHUB_TOKEN=ghp_" + "Pl4nt3dGitHubToken0123456789abcdefgh",
    "OpenAI key": "OPENAI_API_KEY=sk-proj-" + "Pl4nt3dOpenAIKeyValue0123456789abcdefghijklmnop",
    "Anthropic key": "ANTHROPIC_API_KEY=sk-ant-api03-" + "Pl4nt3dAnthropicKey0123456789abcdefghijklmnopqrst",
    "AWS access key and secret": "aws_access_key_id = AKIAQ3PLANTEDKEY0123\naws_secret_access_key = "
    + "Pl4nt3d/AwsSecretAccessKey0123456789abcd",
    "Google API key": "key=AIzaSyPl4nt3dGoogleKey0123456789abcdefg",
    "Hugging Face token": "HF_TOKEN=hf_Pl4nt3dHuggingFaceToken0123456789ab",
    "private key block": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\n"
    + "-----END OPENSSH PRIVATE KEY-----",
    "JWT": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2lnbmF0dXJlLXBsYW50ZWQ",
    "GitLab token": "GITLAB_TOKEN=glpat-Pl4nt3dGitLabTok3n01",
    "Slack bot token": "xoxb-123456789012-1234567890123-Pl4nt3dSlackBotToken0",
    "Stripe live key": "STRIPE_SECRET_KEY=sk_live_Pl4nt3dStripeKey0123456789",
    "token split by zero-width spaces": "ghp_Pl4nt3d\u200bGitHubToken0123\u200b456789abcdefgh",
    "token interleaved with U+034F": "\u034f".join("ghp_Pl4nt3dGitHubToken0123456789abcdefgh"),
    "Databricks token": "DATABRICKS_TOKEN=dapi0123456789abcdef0123456789abcdef",
    "generic long assignment": "service_api_key: 7f3a9c2e1b8d4f6a0c5e9b2d7a1f3c8e",
}

BENIGN = {
    "git commit hashes": "Merged 3f786850e387550fdab836ed7e6dc881de23001b into "
    + "89e6c98d92887913cadf06b2adb97f26cde4849b",
    "sha256 digest": "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "UUIDs": "run 123e4567-e89b-12d3-a456-426614174000 and 550e8400-e29b-41d4-a716-446655440000",
    "base64 image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDw"
    + "AChwGA60e6kgAAAABJRU5ErkJggg==",
    "code asking for a password": "password = getpass.getpass('Password: ')\nif not check_password(password):",
    "code reading a token from the environment": "token = os.environ['GITHUB_TOKEN']\napi_key = config.get('api_key')",
    "a placeholder": "API_KEY=your-api-key-here\nPASSWORD=<your password>\nSECRET=${SECRET}",
    "prose about passwords": "Choose a password: correcthorsebatterystaple is the classic example.",
    "AWS's documented example keys": "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "a URL without credentials": "See https://docs.example.com:8443/path?query=value#frag for details.",
    "package-lock integrity": "integrity sha512-Q2xhbnRlZCBub3QgYSBzZWNyZXQgYnV0IGEgaGFzaCBvZiBhIHBhY2thZ2U=",
    "version strings": "numpy==1.26.4, torch 2.13.0+cpu, node v20.20.2, build 2026-12-06T00:16:43Z",
    "a password policy": "Passwords must be at least 12 characters and include a digit.",
    "token counts": "input_tokens: 1234, output_tokens: 567, total_tokens: 1801",
    "a hex colour table": "colours: #0072B2 #E69F00 #009E73 #CC79A7 #56B4E9 #D55E00",
}


def test_gitleaks_rules_come_from_a_pinned_release_with_their_licence():
    data = _gitleaks()[0]
    assert data["version"] == "v8.30.1" and len(data["commit"]) == 40 and "MIT" in data["licence"]
    assert "MIT License" in (ROOT / "site_src/secret_rules/LICENSE.gitleaks").read_text(encoding="utf-8")
    assert len(data["rules"]) >= 200


def test_every_rule_finds_its_planted_shape():
    rules = _rules().rules
    assert set(PLANTED) == {r.id for r in rules}
    missed = []
    for rule in rules:
        sample = PLANTED[rule.id]
        if not any(_kept(rule, m, sample) for m in rule.pattern.finditer(sample)) or not find(sample):
            missed.append(rule.id)
    print(f"\nplanted: {len(rules) - len(missed)} of {len(rules)} rules find their shape")
    assert not missed, missed


@pytest.mark.parametrize("name", sorted(REALISTIC))
def test_realistic_credentials_are_found_and_redacted(name):
    text = REALISTIC[name]
    assert find(text), name
    shown = masked(text)
    assert "[REDACTED:" in shown
    for secret_part in ("Pl4nt3d", "hunter2x", "9f8e7d6c5b4a", "s3cr3tV4lue", "M4ilP4ss99", "Js0nP4ss77", B64):
        assert secret_part not in shown.replace("\u200b", "").replace("\u034f", ""), (name, shown)


def test_realistic_recall_is_printed():
    found = [name for name, text in REALISTIC.items() if find(text)]
    print(f"\nrealistic: {len(found)} of {len(REALISTIC)} found")
    assert len(found) == len(REALISTIC)


@pytest.mark.parametrize("name", sorted(BENIGN))
def test_benign_text_is_not_a_finding(name):
    assert find(BENIGN[name]) == [], (name, find(BENIGN[name]))


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def fixture_texts() -> list[str]:
    """Every string of the real fixtures (AlpacaEval's 805 model outputs and judgments, Inspect's logs) and of the
    demo runs but the files planted on purpose (auth.json and private/), as the scanner sees them."""
    texts: list[str] = []
    for path in sorted((ROOT / "tests/fixtures").rglob("*.json")):
        texts += _texts(json.loads(path.read_text(encoding="utf-8")))
    for path in sorted((ROOT / "tests/fixtures").rglob("*.eval")):
        data = path.read_bytes()
        with zipfile.ZipFile(path) as z:
            members = [member_bytes(z, info, data) for info in z.infolist() if info.filename.endswith(".json")]
            texts += [t for raw in members for t in _texts(json.loads(raw))]
    for path in sorted((ROOT / "runs").rglob("*")):
        if path.is_file() and path.name != "auth.json" and "private" not in path.parts:
            text = path.read_text(encoding="utf-8")
            texts += [text] + ([t for line in text.splitlines() if line for t in _texts(json.loads(line))]
                               if path.suffix == ".jsonl" else [])  # fmt: skip
    return texts


def test_the_real_fixtures_and_the_demo_raise_no_false_alarm():
    texts = fixture_texts()
    alarms = [(t[:80], find(t)) for t in texts if find(t)]
    print(f"\nbenign: {len(texts)} texts of the fixtures and the demo, {len(alarms)} false alarms")
    assert not alarms, alarms[:5]


def test_a_short_value_needs_entropy_and_a_digit_and_a_letter():
    assert entropy("hunter2x") > 2.5 > entropy("aaaaaa11")
    assert find("DB_PASSWORD=hunter2x") and not find("DB_PASSWORD=aaaaaa11")
    assert not find("DB_PASSWORD=changeme") and not find("secret: placeholder")
