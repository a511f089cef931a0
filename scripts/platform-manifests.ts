/**
 * The manifests of the course-platform packages: SCORM 1.2 and SCORM 2004 (4th edition)
 * `imsmanifest.xml`, and cmi5's `cmi5.xml`. One SCO / AU per unit — a lesson (`sco/<id>/`) or the
 * general questions (`sco/check/`) — all sharing the site's files, which the SCORM manifests list
 * in one asset resource. No mastery score is declared: the content itself says passed
 * (components/platform/lesson-result.ts), and a platform-side mastery score would override that
 * with a pass mark on the questions' score.
 */

/** One unit of a package. */
export interface PackageUnit {
  id: string;
  title: string;
  description: string;
  /** The launch page inside the package, e.g. `sco/receipt-redelivery/index.html`. */
  href: string;
  /** A lesson has a pass mark (its lab); the general questions only complete. */
  lesson: boolean;
}

export interface PackageInfo {
  /** A stable identifier of the course, e.g. `effectively-once`. */
  identifier: string;
  title: string;
  description: string;
  units: readonly PackageUnit[];
  /** Every file of the package other than the manifest, by its path inside it. */
  files: readonly string[];
}

export function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Identifiers in IMS manifests are XML IDs: a letter first, then letters, digits, `-`, `_`, `.`. */
function xmlId(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

function fileList(files: readonly string[], indent: string): string {
  return files.map((f) => `${indent}<file href="${xmlEscape(f)}"/>`).join('\n');
}

export function scorm12Manifest(info: PackageInfo): string {
  const items = info.units
    .map((u) => `      <item identifier="${xmlId('item', u.id)}" identifierref="${xmlId('res', u.id)}" isvisible="true">\n        <title>${xmlEscape(u.title)}</title>\n      </item>`)
    .join('\n');
  const resources = info.units
    .map(
      (u) =>
        `    <resource identifier="${xmlId('res', u.id)}" type="webcontent" adlcp:scormtype="sco" href="${xmlEscape(u.href)}">\n      <file href="${xmlEscape(u.href)}"/>\n      <dependency identifierref="site"/>\n    </resource>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${xmlEscape(info.identifier)}" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="org">
    <organization identifier="org">
      <title>${xmlEscape(info.title)}</title>
${items}
    </organization>
  </organizations>
  <resources>
${resources}
    <resource identifier="site" type="webcontent" adlcp:scormtype="asset">
${fileList(info.files, '      ')}
    </resource>
  </resources>
</manifest>
`;
}

export function scorm2004Manifest(info: PackageInfo): string {
  const items = info.units
    .map((u) => `      <item identifier="${xmlId('item', u.id)}" identifierref="${xmlId('res', u.id)}">\n        <title>${xmlEscape(u.title)}</title>\n      </item>`)
    .join('\n');
  const resources = info.units
    .map(
      (u) =>
        `    <resource identifier="${xmlId('res', u.id)}" type="webcontent" adlcp:scormType="sco" href="${xmlEscape(u.href)}">\n      <file href="${xmlEscape(u.href)}"/>\n      <dependency identifierref="site"/>\n    </resource>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${xmlEscape(info.identifier)}" version="1"
  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>2004 4th Edition</schemaversion>
  </metadata>
  <organizations default="org">
    <organization identifier="org">
      <title>${xmlEscape(info.title)}</title>
${items}
    </organization>
  </organizations>
  <resources>
${resources}
    <resource identifier="site" type="webcontent" adlcp:scormType="asset">
${fileList(info.files, '      ')}
    </resource>
  </resources>
</manifest>
`;
}

/**
 * cmi5's course structure. AU and course ids are IRIs under `urn:<identifier>:`; a lesson moves on
 * when passed, the general questions when completed. Launch URLs are relative to the package.
 */
export function cmi5CourseStructure(info: PackageInfo): string {
  const lang = 'en-US';
  const text = (tag: string, value: string, indent: string) => `${indent}<${tag}><langstring lang="${lang}">${xmlEscape(value)}</langstring></${tag}>`;
  const aus = info.units
    .map((u) =>
      [
        `  <au id="urn:${xmlEscape(info.identifier)}:au:${xmlEscape(u.id)}" moveOn="${u.lesson ? 'Passed' : 'Completed'}" launchMethod="AnyWindow">`,
        text('title', u.title, '    '),
        text('description', u.description, '    '),
        `    <url>${xmlEscape(u.href)}</url>`,
        '  </au>',
      ].join('\n'),
    )
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="urn:${xmlEscape(info.identifier)}:course">
${text('title', info.title, '    ')}
${text('description', info.description, '    ')}
  </course>
${aus}
</courseStructure>
`;
}
