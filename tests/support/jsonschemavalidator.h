// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A JSON Schema validator for the subset the OpenAPI document uses (OpenAPI 3.0 schema objects):
// $ref (local), type (a name or a list; integer is a number without fraction), nullable, enum,
// properties, required, additionalProperties (false or a schema), minProperties, items,
// minItems/maxItems, allOf/anyOf/oneOf, minimum/maximum, minLength/maxLength, pattern and
// format date-time (loosely: an ISO 8601 date and time). Keywords it does not know are ignored,
// as JSON Schema says; annotations (description, example, default) mean nothing to it.

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QRegularExpression>
#include <QStringList>

#include <cmath>

namespace Broker::Testing {

class JsonSchemaValidator
{
public:
    // `root` resolves "$ref": "#/a/b" (the OpenAPI document, or a schema standing alone).
    explicit JsonSchemaValidator(QJsonObject root = {}) : m_root(std::move(root)) {}

    // What is wrong with `value` against `schema`, one line per fault ("$.queues[0].name: ...");
    // empty when it is valid.
    QStringList validate(const QJsonValue &value, const QJsonObject &schema) const
    {
        QStringList faults;
        check(value, schema, QStringLiteral("$"), faults, 0);
        return faults;
    }

    // The object a local reference points to; empty when it points nowhere.
    QJsonObject resolve(const QString &reference) const
    {
        if (!reference.startsWith(u"#/"))
            return {};
        QJsonValue node = m_root;
        for (QString part : reference.mid(2).split(u'/')) {
            part.replace(QStringLiteral("~1"), QStringLiteral("/")).replace(QStringLiteral("~0"), QStringLiteral("~"));
            if (!node.isObject() || !node.toObject().contains(part))
                return {};
            node = node.toObject().value(part);
        }
        return node.toObject();
    }

private:
    static QString typeOf(const QJsonValue &value)
    {
        switch (value.type()) {
        case QJsonValue::Null: return QStringLiteral("null");
        case QJsonValue::Bool: return QStringLiteral("boolean");
        case QJsonValue::Double: return QStringLiteral("number");
        case QJsonValue::String: return QStringLiteral("string");
        case QJsonValue::Array: return QStringLiteral("array");
        case QJsonValue::Object: return QStringLiteral("object");
        default: return QStringLiteral("undefined");
        }
    }

    static bool hasType(const QJsonValue &value, const QString &type)
    {
        if (type == u"integer")
            return value.isDouble() && std::isfinite(value.toDouble()) && std::floor(value.toDouble()) == value.toDouble();
        return typeOf(value) == type;
    }

    static bool looksLikeDateTime(const QString &text)
    {
        static const QRegularExpression shape(
            QStringLiteral(R"(^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$)"));
        return shape.match(text).hasMatch() && QDateTime::fromString(text.left(10), QStringLiteral("yyyy-MM-dd")).isValid();
    }

    void check(const QJsonValue &value, const QJsonObject &schema, const QString &at, QStringList &faults, int depth) const
    {
        if (depth > 64) {
            faults << at + QStringLiteral(": schema nests too deep (a $ref cycle?)");
            return;
        }
        if (schema.contains(u"$ref")) {
            const QString reference = schema.value(u"$ref").toString();
            const QJsonObject target = resolve(reference);
            if (target.isEmpty())
                faults << at + QStringLiteral(": unresolved $ref %1").arg(reference);
            else
                check(value, target, at, faults, depth + 1);
            return; // OpenAPI 3.0: siblings of $ref are ignored
        }
        if (value.isNull() && schema.value(u"nullable").toBool())
            return;
        const QJsonValue type = schema.value(u"type");
        if (type.isString() && !hasType(value, type.toString())) {
            faults << at + QStringLiteral(": expected %1, got %2").arg(type.toString(), typeOf(value));
            return;
        }
        if (type.isArray()) {
            bool any = false;
            for (const QJsonValue &one : type.toArray())
                any = any || hasType(value, one.toString());
            if (!any) {
                faults << at + QStringLiteral(": expected one of the types %1, got %2")
                                   .arg(type.toVariant().toStringList().join(u", "), typeOf(value));
                return;
            }
        }
        if (schema.contains(u"enum") && !schema.value(u"enum").toArray().contains(value))
            faults << at + QStringLiteral(": %1 is not one of the allowed values").arg(shown(value));
        checkCombinations(value, schema, at, faults, depth);
        if (value.isDouble())
            checkNumber(value.toDouble(), schema, at, faults);
        else if (value.isString())
            checkString(value.toString(), schema, at, faults);
        else if (value.isArray())
            checkArray(value.toArray(), schema, at, faults, depth);
        else if (value.isObject())
            checkObject(value.toObject(), schema, at, faults, depth);
    }

    void checkCombinations(const QJsonValue &value, const QJsonObject &schema, const QString &at, QStringList &faults,
                           int depth) const
    {
        for (const QJsonValue &part : schema.value(u"allOf").toArray())
            check(value, part.toObject(), at, faults, depth + 1);
        const auto matching = [&](const char *keyword, QStringList &why) {
            int count = 0;
            for (const QJsonValue &part : schema.value(QLatin1StringView(keyword)).toArray()) {
                QStringList partFaults;
                check(value, part.toObject(), at, partFaults, depth + 1);
                count += partFaults.isEmpty() ? 1 : 0;
                why += partFaults;
            }
            return count;
        };
        if (schema.contains(u"anyOf")) {
            QStringList why;
            if (matching("anyOf", why) == 0)
                faults << at + QStringLiteral(": matches none of anyOf (%1)").arg(why.join(u"; "));
        }
        if (schema.contains(u"oneOf")) {
            QStringList why;
            const int count = matching("oneOf", why);
            if (count != 1)
                faults << at + QStringLiteral(": matches %1 of oneOf, not exactly one (%2)").arg(count).arg(why.join(u"; "));
        }
    }

    static void checkNumber(double number, const QJsonObject &schema, const QString &at, QStringList &faults)
    {
        if (schema.contains(u"minimum") && number < schema.value(u"minimum").toDouble())
            faults << at + QStringLiteral(": %1 is below the minimum %2").arg(number).arg(schema.value(u"minimum").toDouble());
        if (schema.contains(u"maximum") && number > schema.value(u"maximum").toDouble())
            faults << at + QStringLiteral(": %1 is above the maximum %2").arg(number).arg(schema.value(u"maximum").toDouble());
    }

    static void checkString(const QString &text, const QJsonObject &schema, const QString &at, QStringList &faults)
    {
        if (schema.contains(u"minLength") && text.size() < schema.value(u"minLength").toInt())
            faults << at + QStringLiteral(": shorter than %1").arg(schema.value(u"minLength").toInt());
        if (schema.contains(u"maxLength") && text.size() > schema.value(u"maxLength").toInt())
            faults << at + QStringLiteral(": longer than %1").arg(schema.value(u"maxLength").toInt());
        if (schema.contains(u"pattern")
            && !QRegularExpression(schema.value(u"pattern").toString()).match(text).hasMatch())
            faults << at + QStringLiteral(": \"%1\" does not match %2").arg(text, schema.value(u"pattern").toString());
        if (schema.value(u"format").toString() == u"date-time" && !looksLikeDateTime(text))
            faults << at + QStringLiteral(": \"%1\" is not a date-time").arg(text);
    }

    void checkArray(const QJsonArray &array, const QJsonObject &schema, const QString &at, QStringList &faults,
                    int depth) const
    {
        if (schema.contains(u"minItems") && array.size() < schema.value(u"minItems").toInt())
            faults << at + QStringLiteral(": fewer than %1 items").arg(schema.value(u"minItems").toInt());
        if (schema.contains(u"maxItems") && array.size() > schema.value(u"maxItems").toInt())
            faults << at + QStringLiteral(": more than %1 items").arg(schema.value(u"maxItems").toInt());
        if (!schema.value(u"items").isObject())
            return;
        for (qsizetype i = 0; i < array.size(); ++i)
            check(array.at(i), schema.value(u"items").toObject(), at + QStringLiteral("[%1]").arg(i), faults, depth + 1);
    }

    void checkObject(const QJsonObject &object, const QJsonObject &schema, const QString &at, QStringList &faults,
                     int depth) const
    {
        for (const QJsonValue &name : schema.value(u"required").toArray()) {
            if (!object.contains(name.toString()))
                faults << at + QStringLiteral(": required property '%1' is missing").arg(name.toString());
        }
        if (schema.contains(u"minProperties") && object.size() < schema.value(u"minProperties").toInt())
            faults << at + QStringLiteral(": fewer than %1 properties").arg(schema.value(u"minProperties").toInt());
        const QJsonObject properties = schema.value(u"properties").toObject();
        const QJsonValue additional = schema.value(u"additionalProperties");
        for (auto it = object.begin(); it != object.end(); ++it) {
            const QString where = at + u'.' + it.key();
            if (properties.contains(it.key()))
                check(it.value(), properties.value(it.key()).toObject(), where, faults, depth + 1);
            else if (additional.isBool() && !additional.toBool())
                faults << at + QStringLiteral(": property '%1' is not allowed").arg(it.key());
            else if (additional.isObject())
                check(it.value(), additional.toObject(), where, faults, depth + 1);
        }
    }

    static QString shown(const QJsonValue &value)
    {
        QJsonArray wrapped{value};
        const QByteArray text = QJsonDocument(wrapped).toJson(QJsonDocument::Compact);
        return QString::fromUtf8(text.mid(1, text.size() - 2)).left(80);
    }

    QJsonObject m_root;
};

} // namespace Broker::Testing
