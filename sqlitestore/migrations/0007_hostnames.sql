-- Hostnames are stored in one spelling (appliance.NormalizeHostname): trimmed, lowercase,
-- without one trailing dot. A row whose new spelling another row already has is left as it is
-- (OR IGNORE) rather than merged behind the operator's back.
UPDATE OR IGNORE assets
   SET hostname = CASE WHEN substr(lower(trim(hostname)), -1) = '.'
                       THEN substr(lower(trim(hostname)), 1, length(trim(hostname)) - 1)
                       ELSE lower(trim(hostname)) END;
UPDATE OR IGNORE container_images
   SET hostname = CASE WHEN substr(lower(trim(hostname)), -1) = '.'
                       THEN substr(lower(trim(hostname)), 1, length(trim(hostname)) - 1)
                       ELSE lower(trim(hostname)) END;
